/**
 * The classic outbox/inbox example, runnable end to end (R23): an {@link io.twinbox.example.OrderService}
 * and a {@link io.twinbox.example.PaymentService}, each on its own PostgreSQL database, exchanging
 * {@code OrderCreated} and {@code PaymentCaptured}/{@code PaymentDeclined} through Twinbox outboxes,
 * Kafka and inboxes. {@link io.twinbox.example.Demo} is the command that runs it and verifies every
 * effect with SQL; {@link io.twinbox.example.PaymentServiceMain} runs the payment service as a
 * process of its own.
 */
package io.twinbox.example;
