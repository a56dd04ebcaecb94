# Sourced after scripts/lib/connect.sh by the scripts that run the real Debezium PostgreSQL
# connector (scripts/compare-debezium.sh, scripts/bench-cdc.sh): fetches
# io.debezium:debezium-connector-postgres and its runtime dependencies from Maven Central,
# minus what Kafka Connect provides (org.apache.kafka:* with its own dependencies, such as
# the compression codecs, and slf4j-api), into a cached plugin
# directory: $DEBEZIUM_PLUGIN_PATH holds one subdirectory, debezium-connector-postgres/, the
# shape Kafka Connect's `plugin.path` expects. Functions and defaults only: the sourcing
# script owns the run.
#
# Environment (defaults): DEBEZIUM_VERSION (3.6.1.Final), DEBEZIUM_CACHE
# (~/.cache/wasm-connect/debezium-postgres-$DEBEZIUM_VERSION).

DEBEZIUM_VERSION="${DEBEZIUM_VERSION:-3.6.1.Final}"
DEBEZIUM_CACHE="${DEBEZIUM_CACHE:-$HOME/.cache/wasm-connect/debezium-postgres-$DEBEZIUM_VERSION}"
DEBEZIUM_PLUGIN_PATH="$DEBEZIUM_CACHE/plugins"

# fetch_debezium: the plugin directory, downloaded once (one progress line per jar mvn
# downloads; mvn is quiet when ~/.m2 already holds them).
fetch_debezium() {
    [[ -f "$DEBEZIUM_CACHE/.complete" ]] && return 0
    need mvn "needed once to fetch io.debezium:debezium-connector-postgres:$DEBEZIUM_VERSION from Maven Central"
    mkdir -p "$DEBEZIUM_CACHE"
    exec 7>"$DEBEZIUM_CACHE/.lock"
    flock 7
    if [[ -f "$DEBEZIUM_CACHE/.complete" ]]; then exec 7>&-; return 0; fi
    local work
    work="$(mktemp -d "$DEBEZIUM_CACHE/.fetch.XXXXXX")"
    cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>wasm-connect</groupId>
  <artifactId>debezium-postgres-plugin</artifactId>
  <version>1</version>
  <dependencies>
    <dependency><groupId>io.debezium</groupId><artifactId>debezium-connector-postgres</artifactId><version>$DEBEZIUM_VERSION</version>
      <exclusions><exclusion><groupId>org.apache.kafka</groupId><artifactId>*</artifactId></exclusion></exclusions></dependency>
  </dependencies>
</project>
POM
    echo "fetching Debezium's PostgreSQL connector $DEBEZIUM_VERSION from Maven Central into $DEBEZIUM_CACHE ..." >&2
    if ! mvn -B -Dstyle.color=never -f "$work/pom.xml" dependency:copy-dependencies \
        -DincludeScope=runtime -DexcludeGroupIds=org.apache.kafka \
        -DoutputDirectory="$work/libs" 2>&1 | tee "$work/mvn.log" \
        | sed -un 's/\x1b\[[0-9;]*m//g; s/^.*Downloaded from [^:]*: .*\/\([^/]*\.jar\) .*/  downloaded \1/p' >&2 \
        || ! grep -q 'BUILD SUCCESS' "$work/mvn.log"; then
        sed 's/\x1b\[[0-9;]*m//g' "$work/mvn.log" | grep -F '[ERROR]' | head -n 3 >&2 || tail -n 20 "$work/mvn.log" >&2
        rm -rf "$work"
        die "mvn could not fetch io.debezium:debezium-connector-postgres:$DEBEZIUM_VERSION (see above)"
    fi
    [[ -f "$work/libs/debezium-connector-postgres-$DEBEZIUM_VERSION.jar" ]] \
        || { rm -rf "$work"; die "mvn fetched no debezium-connector-postgres-$DEBEZIUM_VERSION.jar"; }
    # The worker's own logging API: a second copy inside the plugin would shadow it.
    rm -f "$work"/libs/slf4j-api-*.jar
    rm -rf "$DEBEZIUM_PLUGIN_PATH"
    mkdir -p "$DEBEZIUM_PLUGIN_PATH"
    mv "$work/libs" "$DEBEZIUM_PLUGIN_PATH/debezium-connector-postgres"
    rm -rf "$work"
    touch "$DEBEZIUM_CACHE/.complete"
    echo "Debezium $DEBEZIUM_VERSION: $(find "$DEBEZIUM_PLUGIN_PATH" -name '*.jar' | wc -l) jars in $DEBEZIUM_PLUGIN_PATH" >&2
    exec 7>&-
}
