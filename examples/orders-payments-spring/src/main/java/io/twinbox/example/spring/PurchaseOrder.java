package io.twinbox.example.spring;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An order of the order service: PENDING until Payment answers, then PAID or DECLINED. */
@Entity
@Table(name = "purchase_order")
public class PurchaseOrder {
  /** The order's states. */
  public enum Status { PENDING, PAID, DECLINED }

  @Id
  private String id;
  private String customerId;
  private long amountCents;
  @jakarta.persistence.Enumerated(jakarta.persistence.EnumType.STRING)
  private Status status;

  protected PurchaseOrder() {}

  public PurchaseOrder(String id, String customerId, long amountCents) {
    this.id = id;
    this.customerId = customerId;
    this.amountCents = amountCents;
    this.status = Status.PENDING;
  }

  public String getId() {
    return id;
  }

  public String getCustomerId() {
    return customerId;
  }

  public long getAmountCents() {
    return amountCents;
  }

  public Status getStatus() {
    return status;
  }
}
