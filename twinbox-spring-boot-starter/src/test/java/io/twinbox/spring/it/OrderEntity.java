package io.twinbox.spring.it;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An order, stored with JPA. */
@Entity
@Table(name = "spring_it_order")
public class OrderEntity {
  @Id
  private String id;
  private String status;

  protected OrderEntity() {}

  OrderEntity(String id, String status) {
    this.id = id;
    this.status = status;
  }

  public String getId() {
    return id;
  }

  public String getStatus() {
    return status;
  }
}
