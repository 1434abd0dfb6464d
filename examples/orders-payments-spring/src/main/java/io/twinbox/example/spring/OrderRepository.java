package io.twinbox.example.spring;

import org.springframework.data.jpa.repository.JpaRepository;

/** Orders, with Spring Data JPA. */
public interface OrderRepository extends JpaRepository<PurchaseOrder, String> {
  long countByStatus(PurchaseOrder.Status status);
}
