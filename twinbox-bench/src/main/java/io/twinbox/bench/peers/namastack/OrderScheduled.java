package io.twinbox.bench.peers.namastack;

/**
 * The payload the namastack contender schedules: one per business transaction, with the aggregate id
 * as the record key ({@code outbox.schedule(payload, aggregateId)}). namastack stores it as JSON (its
 * Jackson serializer) and hands it back to {@link NamastackKafkaHandler}, which sends {@code order} to
 * {@code topic} with {@code id} in the {@code ce_id} header.
 *
 * @param order the same order JSON the other contenders publish, as a string
 */
public record OrderScheduled(String topic, String id, String order) {}
