package outboxlab.debezium;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;

/**
 * The glue a team writes around Debezium's embedded engine: build the
 * engine (PostgreSQL connector, outbox event router), hand each record it
 * emits to a Kafka producer, wait for the broker's acknowledgement, and
 * only then mark the record processed, so that the engine's next offset
 * commit confirms the slot past it. Everything else, reading the slot,
 * routing the outbox row to its topic, key, value and headers, and
 * confirming the slot, is Debezium's.
 *
 * It knows only the contract of labrun-real verify (CONTRACT.md): the
 * environment below, and the slot OUTBOX_SLOT the harness created before
 * the first row (--sent-by slot), with the publication of mapping.sql.
 */
public final class Relay {
    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--warmup")) {
            warmup();
            return;
        }
        String instance = env("OUTBOX_INSTANCE_ID");
        KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(instance));
        DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                .using(engineConfig(instance))
                .notifying((records, committer) -> publish(producer, records, committer))
                .using((success, message, error) -> {
                    // The engine stopped by itself (it cannot reach the slot, a
                    // record could not be published): end, and be restarted.
                    log("engine stopped: " + message + (error == null ? "" : " (" + error + ")"));
                    if (!stopping) {
                        Runtime.getRuntime().halt(1);
                    }
                })
                .build();
        // SIGTERM: the engine commits what was marked processed and stops;
        // the contract gives an instance three seconds to end.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopping = true;
            Thread close = new Thread(() -> {
                try {
                    engine.close();
                }
                catch (Exception e) {
                    log("close: " + e);
                }
            });
            close.start();
            try {
                close.join(2000);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            producer.close(Duration.ofMillis(300));
            if (close.isAlive()) {
                log("the engine did not stop within 2 s of SIGTERM: halting");
                Runtime.getRuntime().halt(0);
            }
        }));
        Properties c = engineConfig(instance);
        log("started, streaming from slot " + env("OUTBOX_SLOT") + " (offset.flush.interval.ms " + c.getProperty("offset.flush.interval.ms")
                + ", heartbeat.interval.ms " + c.getProperty("heartbeat.interval.ms") + ", snapshot.mode " + c.getProperty("snapshot.mode") + ")");
        engine.run();
    }

    private static volatile boolean stopping;

    /**
     * Loads what a start loads, against a database and a broker that are not
     * there, for the JVM's class data archive (the relay script makes it
     * once): a start then reads the classes from the archive instead of the
     * jars, several seconds less of CPU for each restart of an instance.
     */
    static void warmup() throws Exception {
        stopping = true;
        Properties e = new Properties();
        e.putAll(Map.of("OUTBOX_DATABASE_URL", "postgres://lab@127.0.0.1:9/none", "OUTBOX_BROKERS", "127.0.0.1:9",
                "OUTBOX_TOPIC", "orders", "OUTBOX_ID_HEADER", "event-id", "OUTBOX_SLOT", "outbox_none"));
        warm = e;
        KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig("warmup"));
        DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                .using(engineConfig("warmup"))
                .notifying((records, committer) -> publish(producer, records, committer))
                .build();
        Thread run = new Thread(engine);
        run.start();
        run.join(8000);
        try {
            engine.close(); // the engine stops by itself when it cannot reach the database
        }
        catch (IllegalStateException stopped) {
        }
        producer.close(Duration.ZERO);
    }

    private static Properties warm;

    /** The topic prefix of the connector's heartbeat records (heartbeat.interval.ms). */
    static final String HEARTBEATS = "__debezium-heartbeat";

    /** Publishes a batch, waits for every acknowledgement, then marks the batch processed. */
    static void publish(KafkaProducer<String, String> producer, List<RecordChangeEvent<SourceRecord>> records,
                        DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer) throws InterruptedException {
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (RecordChangeEvent<SourceRecord> r : records) {
            SourceRecord s = r.record();
            if (s.value() == null || s.topic().startsWith(HEARTBEATS)) { // a tombstone, or a heartbeat: a position to commit, nothing to publish
                sends.add(null);
                ids.add(null);
                continue;
            }
            ProducerRecord<String, String> p = new ProducerRecord<>(s.topic(), null, String.valueOf(s.key()), String.valueOf(s.value()));
            String id = "";
            for (Header h : s.headers()) {
                p.headers().add(h.key(), String.valueOf(h.value()).getBytes(StandardCharsets.UTF_8));
                if (h.key().equals(env("OUTBOX_ID_HEADER"))) {
                    id = String.valueOf(h.value());
                }
            }
            sends.add(producer.send(p));
            ids.add(id);
        }
        StringBuilder said = new StringBuilder();
        for (int i = 0; i < records.size(); i++) {
            if (sends.get(i) != null) {
                try {
                    RecordMetadata m = sends.get(i).get();
                    said.append(' ').append(ids.get(i)).append(" p").append(m.partition()).append('/').append(m.offset());
                }
                catch (ExecutionException e) {
                    throw new RuntimeException("publish " + ids.get(i) + " failed: " + e.getCause(), e);
                }
            }
            committer.markProcessed(records.get(i));
        }
        committer.markBatchFinished();
        if (said.length() > 0) {
            log("acknowledged" + said);
        }
    }

    static Properties engineConfig(String instance) {
        URI db = URI.create(env("OUTBOX_DATABASE_URL"));
        Properties p = new Properties();
        p.setProperty("name", "outbox-" + instance);
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        // The slot is the durable position: each start streams from what it
        // confirmed. Offsets kept in memory only carry that position from one
        // commit to the next within a process.
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "1000");
        p.setProperty("database.hostname", db.getHost());
        p.setProperty("database.port", String.valueOf(db.getPort()));
        p.setProperty("database.user", db.getUserInfo());
        p.setProperty("database.password", "");
        p.setProperty("database.dbname", db.getPath().substring(1));
        p.setProperty("topic.prefix", "outboxlab");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", env("OUTBOX_SLOT"));
        p.setProperty("publication.name", "dbz_publication");
        p.setProperty("publication.autocreate.mode", "disabled");
        p.setProperty("snapshot.mode", "no_data");
        p.setProperty("table.include.list", "public.outbox");
        p.setProperty("transforms", "outbox");
        p.setProperty("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
        p.setProperty("transforms.outbox.table.field.event.id", "event_id");
        p.setProperty("transforms.outbox.table.field.event.key", "aggregate_id");
        p.setProperty("transforms.outbox.table.field.event.payload", "payload");
        p.setProperty("transforms.outbox.route.by.field", "aggregate_type");
        p.setProperty("transforms.outbox.route.topic.replacement", env("OUTBOX_TOPIC"));
        p.setProperty("transforms.outbox.table.fields.additional.placement", "event_id:header:" + env("OUTBOX_ID_HEADER"));
        // Without heartbeats the last transaction's commit is confirmed only
        // when a later one's first record is processed (ECOSYSTEM.md).
        p.setProperty("heartbeat.interval.ms", "1000");
        // A second instance waits for the slot, which one walsender holds at
        // a time: a hot standby that takes over within a second.
        p.setProperty("slot.retry.delay.ms", "1000");
        p.setProperty("slot.max.retries", "1000000");
        // DEBEZIUM_CONFIG="key=value,…" overrides any of the above (to grade
        // Debezium's defaults, say).
        for (String kv : System.getenv().getOrDefault("DEBEZIUM_CONFIG", "").split(",")) {
            if (kv.contains("=")) {
                p.setProperty(kv.substring(0, kv.indexOf('=')).trim(), kv.substring(kv.indexOf('=') + 1).trim());
            }
        }
        return p;
    }

    static Properties producerConfig(String instance) {
        Properties p = new Properties();
        p.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, env("OUTBOX_BROKERS"));
        p.setProperty(ProducerConfig.CLIENT_ID_CONFIG, instance);
        p.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        p.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.setProperty(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.setProperty(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return p;
    }

    static String env(String name) {
        String v = warm != null ? warm.getProperty(name) : System.getenv(name);
        if (v == null || v.isEmpty()) {
            log("the environment has no " + name + " (labrun-real verify --sent-by slot sets it)");
            System.exit(2);
        }
        return v;
    }

    static void log(String line) {
        System.err.println(line);
        System.err.flush();
    }
}
