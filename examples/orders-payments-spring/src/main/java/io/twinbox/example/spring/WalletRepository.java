package io.twinbox.example.spring;

import org.springframework.data.jpa.repository.JpaRepository;

/** Wallets, with Spring Data JPA. */
public interface WalletRepository extends JpaRepository<Wallet, String> {}
