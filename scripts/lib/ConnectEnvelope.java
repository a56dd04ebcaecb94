// A Kafka Connect transformation used by scripts/compare-registry-kafka-connect.sh only: it
// turns a record's value between Connect data and the text of a JsonConverter envelope
// ({"schema": ..., "payload": ...}, schemas.enable=true), so that Kafka Connect's stock
// FileStreamSource can feed typed records and its FileStreamSink can print them as text a
// script can compare. Keys, headers and timestamps pass through; a null value stays null.
//
//   mode=parse    the value is envelope text (a FileStreamSource line): it becomes the
//                 Connect schema and value the envelope describes
//   mode=format   the value is Connect data: it becomes the envelope text (STRING schema),
//                 decimals as JsonConverter's default BASE64 writes them
//
// The script compiles it with javac against Kafka Connect's jars (connect-api, connect-json)
// and puts the jar in a plugin directory of the Kafka Connect worker.
package wasmconnect.compare;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.transforms.Transformation;

public class ConnectEnvelope<R extends ConnectRecord<R>> implements Transformation<R> {
    private final JsonConverter json = new JsonConverter();
    private boolean parse = true;

    @Override
    public void configure(Map<String, ?> configs) {
        Object mode = configs.get("mode");
        String m = mode == null ? "parse" : mode.toString();
        if (!m.equals("parse") && !m.equals("format")) {
            throw new org.apache.kafka.common.config.ConfigException("mode", m, "parse or format");
        }
        parse = m.equals("parse");
        Map<String, Object> settings = new HashMap<>();
        settings.put("schemas.enable", "true");
        json.configure(settings, false);
    }

    @Override
    public R apply(R record) {
        if (record.value() == null) {
            return record;
        }
        if (parse) {
            byte[] text = record.value().toString().getBytes(StandardCharsets.UTF_8);
            SchemaAndValue data = json.toConnectData(record.topic(), text);
            return record.newRecord(record.topic(), record.kafkaPartition(), record.keySchema(),
                record.key(), data.schema(), data.value(), record.timestamp());
        }
        byte[] text = json.fromConnectData(record.topic(), record.valueSchema(), record.value());
        return record.newRecord(record.topic(), record.kafkaPartition(), record.keySchema(),
            record.key(), Schema.STRING_SCHEMA, new String(text, StandardCharsets.UTF_8),
            record.timestamp());
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef().define("mode", ConfigDef.Type.STRING, "parse",
            ConfigDef.ValidString.in("parse", "format"), ConfigDef.Importance.HIGH,
            "parse: envelope text to Connect data; format: Connect data to envelope text");
    }

    @Override
    public void close() {
        json.close();
    }
}
