package io.twinbox.spring.autoconfigure;

import io.twinbox.Inbox;
import io.twinbox.InboxSettings;
import io.twinbox.Retention;
import io.twinbox.RetentionListener;
import io.twinbox.RetentionSettings;
import io.twinbox.jdbc.JdbcInboxStore;
import io.twinbox.jdbc.JdbcStore;
import io.twinbox.settings.SettingValues;
import io.twinbox.spring.TwinboxRetention;
import io.twinbox.spring.TwinboxSettings;
import io.twinbox.spring.internal.CompositeRetentionListener;
import java.time.Duration;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link Retention} as a lifecycle bean when {@code twinbox.retention.enabled=true} (off by
 * default): PUBLISHED outbox rows after {@code twinbox.retention.published-age}, and — when the
 * application has an {@link Inbox} — its records after {@code twinbox.retention.inbox-age}, which
 * defaults to the inbox's own {@code twinbox.inbox.retention} (and the horizon to {@code
 * twinbox.inbox.redelivery-horizon}) when not given. Every {@link RetentionListener} bean listens
 * (the Micrometer meters among them).
 */
@AutoConfiguration(after = {TwinboxAutoConfiguration.class, TwinboxMetricsAutoConfiguration.class})
@ConditionalOnBooleanProperty(name = "twinbox.retention.enabled", matchIfMissing = false)
@ConditionalOnBean(JdbcStore.class)
public class TwinboxRetentionAutoConfiguration {

  /** Retention settings from {@code twinbox.retention.*} ({@link RetentionSettings}). */
  @Bean
  @ConditionalOnMissingBean
  public TwinboxRetention twinboxRetention(JdbcStore store, TwinboxSettings settings, ObjectProvider<Inbox> inbox,
      ObjectProvider<RetentionListener> listeners) {
    SettingValues values = settings.values(RetentionSettings.CATALOGUE);
    SettingValues inboxValues = settings.values(InboxSettings.CATALOGUE);
    boolean withInbox = inbox.getIfAvailable() != null;
    Duration inboxAge = values.isSet(RetentionSettings.INBOX_AGE.name()) ? values.get(RetentionSettings.INBOX_AGE)
        : inboxValues.get(InboxSettings.RETENTION);
    Duration horizon = values.isSet(RetentionSettings.REDELIVERY_HORIZON.name())
        ? values.get(RetentionSettings.REDELIVERY_HORIZON) : inboxValues.get(InboxSettings.REDELIVERY_HORIZON);
    // Built once now so that a wrong value (an inbox age below the horizon) stops the start.
    Supplier<Retention> factory = () -> {
      Retention.Builder b = Retention.builder().outbox(store, values.get(RetentionSettings.PUBLISHED_AGE));
      if (withInbox) {
        b.inbox(JdbcInboxStore.of(store), inboxAge);
      }
      RetentionSettings.CATALOGUE.apply(b, values);
      return b.redeliveryHorizon(horizon)
          .listener(CompositeRetentionListener.of(listeners.orderedStream().toList())).build();
    };
    factory.get();
    return new TwinboxRetention(factory);
  }
}
