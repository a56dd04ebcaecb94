// Dumps every topic whose name matches a regular expression, from its beginning, as JSON lines
// (one file per topic, records in partition then offset order), once the topics are quiet.
// Used by scripts/compare-debezium.sh and scripts/bench-cdc.sh; run with Kafka's clients on
// the class path (java -cp "$CONNECT_LIBS/*" scripts/lib/TopicDump.java ...).
//
//   TopicDump BOOTSTRAP REGEX OUT_DIR QUIET_SECONDS TIMEOUT_SECONDS [MIN_RECORDS [brief]]
//
// Waits until the matching topics hold at least MIN_RECORDS records (default 1) and their end
// offsets have not moved for QUIET_SECONDS, then writes OUT_DIR/<topic>.jsonl. Each line:
// {"topic","partition","offset","timestamp","timestamp_type","key","value","headers"}; key
// and value are the record's bytes as a UTF-8 string (null for null), headers a list of
// [name, value-as-UTF-8-or-null]. With `brief` (for benchmarks), each line is only
// {"offset","timestamp","op","source_ts_ms"}, the last two read from a Debezium envelope (null
// when absent). Exits 1 when TIMEOUT_SECONDS pass first.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.time.Duration;
import java.util.*;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class TopicDump {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        Pattern pattern = Pattern.compile(args[1]);
        Path out = Paths.get(args[2]);
        long quietMs = Long.parseLong(args[3]) * 1000, deadline = System.currentTimeMillis() + Long.parseLong(args[4]) * 1000;
        long minRecords = args.length > 5 ? Long.parseLong(args[5]) : 1;
        boolean brief = args.length > 6 && args[6].equals("brief");
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        p.put("enable.auto.commit", "false");
        p.put("isolation.level", "read_committed");
        p.put("max.poll.records", "2000");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            Map<TopicPartition, Long> ends = Map.of();
            long stableSince = System.currentTimeMillis();
            while (true) {
                List<TopicPartition> parts = new ArrayList<>();
                for (Map.Entry<String, List<PartitionInfo>> e : c.listTopics(Duration.ofSeconds(10)).entrySet())
                    if (pattern.matcher(e.getKey()).matches())
                        for (PartitionInfo pi : e.getValue()) parts.add(new TopicPartition(pi.topic(), pi.partition()));
                Map<TopicPartition, Long> now = new HashMap<>(c.endOffsets(parts, Duration.ofSeconds(10)));
                long total = now.values().stream().mapToLong(Long::longValue).sum();
                if (!now.equals(ends)) { ends = now; stableSince = System.currentTimeMillis(); }
                if (total >= minRecords && System.currentTimeMillis() - stableSince >= quietMs) break;
                if (System.currentTimeMillis() > deadline) {
                    System.err.println("TopicDump: " + args[1] + " not quiet with >= " + minRecords + " records in time (" + total + " records)");
                    System.exit(1);
                }
                Thread.sleep(500);
            }
            Files.createDirectories(out);
            final Map<TopicPartition, Long> last = ends;
            List<TopicPartition> parts = new ArrayList<>(ends.keySet());
            parts.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<String, Writer> writers = new TreeMap<>();
            for (TopicPartition tp : parts)
                writers.computeIfAbsent(tp.topic(), t -> {
                    try { return Files.newBufferedWriter(out.resolve(t + ".jsonl"), StandardCharsets.UTF_8); }
                    catch (IOException e) { throw new UncheckedIOException(e); }
                });
            Map<TopicPartition, List<String>> lines = new HashMap<>();
            Set<TopicPartition> pending = new HashSet<>();
            for (TopicPartition tp : parts) if (ends.get(tp) > 0) pending.add(tp);
            while (!pending.isEmpty()) {
                if (System.currentTimeMillis() > deadline + 60_000) { System.err.println("TopicDump: reading timed out"); System.exit(1); }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (r.offset() < ends.get(tp)) lines.computeIfAbsent(tp, k -> new ArrayList<>()).add(brief ? briefLine(r) : line(r));
                }
                pending.removeIf(tp -> c.position(tp) >= last.get(tp));
            }
            for (TopicPartition tp : parts)
                for (String l : lines.getOrDefault(tp, List.of())) writers.get(tp.topic()).write(l + "\n");
            for (Writer w : writers.values()) w.close();
            System.err.println("TopicDump: " + parts.size() + " partitions, " + ends.values().stream().mapToLong(Long::longValue).sum() + " offsets into " + out);
        }
    }

    static String line(ConsumerRecord<byte[], byte[]> r) {
        StringBuilder b = new StringBuilder("{\"topic\":").append(str(r.topic()));
        b.append(",\"partition\":").append(r.partition()).append(",\"offset\":").append(r.offset());
        b.append(",\"timestamp\":").append(r.timestamp()).append(",\"timestamp_type\":").append(str(r.timestampType().name));
        b.append(",\"key\":").append(bytes(r.key())).append(",\"value\":").append(bytes(r.value())).append(",\"headers\":[");
        boolean first = true;
        for (Header h : r.headers()) {
            if (!first) b.append(',');
            first = false;
            b.append('[').append(str(h.key())).append(',').append(bytes(h.value())).append(']');
        }
        return b.append("]}").toString();
    }

    static final Pattern OP = Pattern.compile("\"op\":\"(\\w)\"");
    static final Pattern SOURCE_TS = Pattern.compile("\"source\":\\{[^{}]*?\"ts_ms\":(\\d+)");

    static String briefLine(ConsumerRecord<byte[], byte[]> r) {
        String v = r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8);
        java.util.regex.Matcher op = OP.matcher(v), ts = SOURCE_TS.matcher(v);
        int payload = v.indexOf("\"payload\":");
        boolean hasOp = payload >= 0 && op.find(payload), hasTs = payload >= 0 && ts.find(payload);
        return "{\"offset\":" + r.offset() + ",\"timestamp\":" + r.timestamp()
            + ",\"op\":" + (hasOp ? str(op.group(1)) : "null")
            + ",\"source_ts_ms\":" + (hasTs ? ts.group(1) : "null") + "}";
    }

    static String bytes(byte[] v) { return v == null ? "null" : str(new String(v, StandardCharsets.UTF_8)); }

    static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (ch < 0x20) b.append(String.format("\\u%04x", (int) ch)); else b.append(ch);
            }
        }
        return b.append('"').toString();
    }
}
