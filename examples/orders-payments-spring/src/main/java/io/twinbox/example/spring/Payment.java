package io.twinbox.example.spring;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A payment decision, keyed by the order: at most one per order (the business key as second guard). */
@Entity
@Table(name = "payment")
public class Payment {
  @Id
  private String orderId;
  private String customerId;
  private long amountCents;
  private boolean captured;

  protected Payment() {}

  public String getOrderId() {
    return orderId;
  }

  public boolean isCaptured() {
    return captured;
  }
}
