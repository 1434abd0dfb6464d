package io.twinbox.example.spring;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A customer's wallet at the payment service; payments debit it. */
@Entity
@Table(name = "wallet")
public class Wallet {
  @Id
  private String customerId;
  private long balanceCents;

  protected Wallet() {}

  public Wallet(String customerId, long balanceCents) {
    this.customerId = customerId;
    this.balanceCents = balanceCents;
  }

  public String getCustomerId() {
    return customerId;
  }

  public long getBalanceCents() {
    return balanceCents;
  }
}
