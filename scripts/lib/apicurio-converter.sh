# Sourced by scripts/compare-registry-kafka-connect.sh after scripts/lib/connect.sh: fetches
# Apicurio's AvroConverter (io.apicurio:apicurio-registry-utils-converter) and its
# dependencies from Maven Central, cached, and lays out a Kafka Connect plugin.path with it
# and scripts/lib/ConnectEnvelope.java compiled. Functions and defaults only; the sourcing
# script owns the run and sets WORK before calling kc_plugins.
#
# Environment (defaults): APICURIO_VERSION (2.6.13.Final), APICURIO_CONVERTER_CACHE
# (~/.cache/wasm-connect/apicurio-converter-$APICURIO_VERSION).

APICURIO_VERSION="${APICURIO_VERSION:-2.6.13.Final}"
APICURIO_CACHE="${APICURIO_CONVERTER_CACHE:-$HOME/.cache/wasm-connect/apicurio-converter-$APICURIO_VERSION}"

# Apicurio's converter and its dependencies, minus what Kafka Connect provides.
fetch_apicurio() {
    [[ -f "$APICURIO_CACHE/.complete" ]] && return 0
    need mvn "needed once to fetch io.apicurio:apicurio-registry-utils-converter:$APICURIO_VERSION"
    mkdir -p "$APICURIO_CACHE"
    local work
    work="$(mktemp -d "$APICURIO_CACHE/.fetch.XXXXXX")"
    cat >"$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>wasm-connect</groupId>
  <artifactId>apicurio-converter</artifactId>
  <version>1</version>
  <dependencies>
    <dependency><groupId>io.apicurio</groupId><artifactId>apicurio-registry-utils-converter</artifactId><version>$APICURIO_VERSION</version></dependency>
  </dependencies>
</project>
EOF
    echo "fetching Apicurio's AvroConverter $APICURIO_VERSION from Maven Central into $APICURIO_CACHE ..." >&2
    if ! mvn -B -Dstyle.color=never -f "$work/pom.xml" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$work/libs" 2>&1 | tee "$work/mvn.log" \
        | sed -un 's/\x1b\[[0-9;]*m//g; s/^.*Downloaded from [^:]*: .*\/\([^/]*\.jar\) .*/  downloaded \1/p' >&2 \
        || ! grep -q 'BUILD SUCCESS' "$work/mvn.log"; then
        grep -F '[ERROR]' "$work/mvn.log" | head -n 3 >&2 || tail -n 20 "$work/mvn.log" >&2
        rm -rf "$work"
        die "mvn could not fetch io.apicurio:apicurio-registry-utils-converter:$APICURIO_VERSION"
    fi
    rm -f "$work"/libs/{kafka-clients,connect-api,connect-json,slf4j-api}-*.jar
    rm -rf "$APICURIO_CACHE/libs"
    mv "$work/libs" "$APICURIO_CACHE/libs"
    rm -rf "$work"
    touch "$APICURIO_CACHE/.complete"
}

# Kafka Connect's plugin.path: Apicurio's converter, and ConnectEnvelope compiled.
kc_plugins() {
    local dir="$WORK/kc-plugins"
    mkdir -p "$dir/apicurio" "$dir/envelope" "$WORK/classes"
    cp "$APICURIO_CACHE"/libs/*.jar "$dir/apicurio/"
    javac --release 17 -nowarn -cp "$CONNECT_LIBS/*" -d "$WORK/classes" "$ROOT/scripts/lib/ConnectEnvelope.java"
    jar cf "$dir/envelope/connect-envelope.jar" -C "$WORK/classes" .
}
