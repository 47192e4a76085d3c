#!/usr/bin/env bash
# Fetches AWS DynamoDB Local and its runtime dependencies from Maven Central, once, into the user cache directory.
# Used by test/support/harness/dynamodb.ts when DYNAMODB_ENDPOINT is not set. Progress goes to stderr; the last line of
# stdout is the install directory, which holds:
#   DynamoDBLocal.jar   the server
#   lib/*.jar           its runtime dependencies (classpath: DynamoDBLocal.jar:lib/*)
#   native/             libsqlite4java-linux-amd64.so, the name sqlite4java looks for on -Djava.library.path
#   launcher/           LoopbackServerRunner.class: starts DynamoDB Local bound to one address (see below)
# Environment:
#   DYNAMODB_LOCAL_VERSION  DynamoDB Local release on Maven Central (default below)
set -euo pipefail

DYNAMODB_LOCAL_VERSION="${DYNAMODB_LOCAL_VERSION:-2.6.1}"
# NOTE: pinned so the install does not depend on Maven's built-in (old) default plugin version.
DEPENDENCY_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/capi-serverless"
# NOTE: bump launcher_rev when the launcher below changes, so existing caches are rebuilt.
launcher_rev=1
dir="$cache_root/dynamodb-local/$DYNAMODB_LOCAL_VERSION-r$launcher_rev"

log() { echo "install-dynamodb-local: $*" >&2; }

if [[ -f "$dir/.complete" ]]; then
  echo "$dir"
  exit 0
fi

# Test files run in parallel and may all install at once: one installs, the others wait and reuse its result.
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
if [[ -f "$dir/.complete" ]]; then
  echo "$dir"
  exit 0
fi

command -v mvn >/dev/null || { log "mvn is required (or set DYNAMODB_ENDPOINT)"; exit 1; }
command -v java >/dev/null || { log "java (17+) is required (or set DYNAMODB_ENDPOINT)"; exit 1; }

work="$dir.tmp.$$"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"

# A throwaway project whose only dependency is DynamoDB Local; Maven resolves the transitive closure.
cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>capi-serverless</groupId>
  <artifactId>dynamodb-local-fetch</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>com.amazonaws</groupId>
      <artifactId>DynamoDBLocal</artifactId>
      <version>$DYNAMODB_LOCAL_VERSION</version>
    </dependency>
  </dependencies>
</project>
POM

mvn_quiet() {
  # NOTE: Maven 3.8 prints colour resets even with --quiet; strip them so logs stay readable.
  mvn --batch-mode --no-transfer-progress --quiet -f "$work/pom.xml" "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2
}

log "resolving com.amazonaws:DynamoDBLocal:$DYNAMODB_LOCAL_VERSION and its dependencies (first run downloads ~50 MB)"
mvn_quiet "$DEPENDENCY_PLUGIN:copy-dependencies" \
  -DincludeScope=runtime -DincludeTypes=jar -DoutputDirectory="$work/lib"
log "resolving the sqlite4java native library"
mvn_quiet "$DEPENDENCY_PLUGIN:copy-dependencies" \
  -DincludeScope=runtime -DincludeTypes=so -DoutputDirectory="$work/so"
mkdir -p "$work/native"
# NOTE: sqlite4java looks for libsqlite4java-linux-amd64.so (or the same with its version) on java.library.path.
mv "$work"/so/libsqlite4java-linux-amd64-*.so "$work/native/libsqlite4java-linux-amd64.so"
rm -rf "$work/so"

mv "$work/lib/DynamoDBLocal-$DYNAMODB_LOCAL_VERSION.jar" "$work/DynamoDBLocal.jar"
[[ -f "$work/native/libsqlite4java-linux-amd64.so" ]] || { log "sqlite4java native library missing"; exit 1; }

# NOTE: DynamoDB Local has no flag for the listen address and its Jetty server binds every interface. The launcher
# builds the server exactly as ServerRunner does, points its Jetty connector at one host (default 127.0.0.1, property
# ddblocal.host) before starting it, and refuses to start if that is not possible. It never configures telemetry.
# With -Dddblocal.exitOnStdinEof=true it exits when its stdin closes, so a test process killed outright leaves no JVM.
log "compiling the loopback launcher"
mkdir -p "$work/launcher-src" "$work/launcher"
cat >"$work/launcher-src/LoopbackServerRunner.java" <<'JAVA'
import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public final class LoopbackServerRunner {
  public static void main(String[] args) throws Exception {
    String host = System.getProperty("ddblocal.host", "127.0.0.1");
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server jetty = (Server) field.get(proxy);
    Connector[] connectors = jetty.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind");
    for (Connector connector : connectors) {
      if (!(connector instanceof ServerConnector)) {
        throw new IllegalStateException("unexpected connector " + connector.getClass().getName());
      }
      ((ServerConnector) connector).setHost(host);
    }
    proxy.start();
    if (Boolean.getBoolean("ddblocal.exitOnStdinEof")) {
      // The parent keeps stdin open; end-of-file means it died, so stop instead of lingering as an orphan.
      Thread watcher = new Thread(() -> {
        try {
          while (System.in.read() != -1) {}
        } catch (java.io.IOException ignored) {
        }
        Runtime.getRuntime().halt(0);
      }, "stdin-watcher");
      watcher.setDaemon(true);
      watcher.start();
    }
    System.out.println("DynamoDB Local listening on " + host + ":" + ((ServerConnector) connectors[0]).getLocalPort());
  }
}
JAVA
javac -nowarn -d "$work/launcher" -cp "$work/DynamoDBLocal.jar:$work/lib/*" "$work/launcher-src/LoopbackServerRunner.java" >&2
rm -rf "$work/launcher-src" "$work/pom.xml"
touch "$work/.complete"

rm -rf "$dir"
mv "$work" "$dir"
trap - EXIT
log "done: $dir"
echo "$dir"
