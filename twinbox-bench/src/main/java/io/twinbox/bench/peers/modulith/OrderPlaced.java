package io.twinbox.bench.peers.modulith;

/**
 * The application event the Spring Modulith contender publishes: one per business transaction. The
 * event publication registry stores it as JSON (its Jackson serializer); the Kafka externalizer sends
 * it as JSON to {@code topic}, keyed by {@code aggregateId}, with {@code id} in the {@code ce_id}
 * header (see {@link ModulithApp#externalization}).
 *
 * @param order the same order JSON the other contenders publish, as a string
 */
public record OrderPlaced(String topic, String aggregateId, String id, String order) {}
