package io.twinbox.example.spring;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The order and payment services as one Spring Boot application (two services in one process for
 * brevity: each has its own tables, and they talk only through Kafka). Twinbox is configured
 * entirely by the starter from {@code application.properties}.
 */
@SpringBootApplication
public class OrdersPaymentsApplication {}
