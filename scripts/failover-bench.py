#!/usr/bin/env python3
"""Where the time goes around a broker outage or a worker kill (BENCHMARKS.md, "Failover").

Three `wasm-connect distributed` workers on a broker of their own (scripts/kafka.sh on
$BPORT, default 19400: start it first), PIPES FileStreamSource -> FileStreamSink pipelines
fed RATE lines every 20 ms each; after 25 s of steady flow either the broker is stopped
(`kafka.sh stop --keep-data`) for OUTAGE seconds and started again, or worker $VICTIM is
killed with SIGKILL. The outputs are sampled every 100 ms; OUT/timeline.txt gets the events
and each pipeline's longest output stall, and the worker logs stay in OUT/ (each line has
its UTC time: `--timeline OUT FROM TO` prints them relative to the start).

usage: failover-bench.py BIN OUT outage|kill [worker.property=value ...]
       failover-bench.py --timeline OUT FROM_S TO_S [SKIP|SKIP...]
"""
import datetime, json, os, re, signal, socket, subprocess, sys, threading, time, urllib.request


def timeline(d, a, b, skip):
    """Worker log lines between A and B seconds after the run's start, in time order."""
    t0 = os.stat(os.path.join(d, "worker-0.properties")).st_mtime
    out = []
    for i in range(3):
        for line in open(os.path.join(d, f"worker-{i}.log"), errors="replace"):
            m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)Z", line)
            if not m:
                continue
            stamp = datetime.datetime.fromisoformat(m.group(1)[:26])
            t = stamp.replace(tzinfo=datetime.timezone.utc).timestamp() - t0
            if a <= t <= b and not any(s in line for s in skip):
                out.append((t, i, line[28:].rstrip()[:260]))
    for t, i, l in sorted(out):
        print(f"{t:8.2f} w{i} {l}")


if sys.argv[1] == "--timeline":
    timeline(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]),
             [s for s in (sys.argv[5].split("|") if len(sys.argv) > 5 else []) if s])
    sys.exit(0)

BIN, OUT, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
EXTRA = sys.argv[4:]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PORT = int(os.environ.get("BPORT", "19400"))
BOOT = f"127.0.0.1:{PORT}"
OUTAGE = float(os.environ.get("OUTAGE", "20"))
PIPES = int(os.environ.get("PIPES", "3"))
RATE = int(os.environ.get("RATE", "20"))  # lines per 20 ms per pipeline
os.makedirs(OUT, exist_ok=True)
T0 = time.time()
events = []


def ev(what):
    t = time.time() - T0
    events.append((t, what))
    print(f"{t:8.2f} {what}", flush=True)


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


prefix = f"exp-{int(time.time()*1000)}"
workers = []
for i in range(3):
    port = free_port()
    cfg = os.path.join(OUT, f"worker-{i}.properties")
    text = f"""bootstrap.servers={BOOT}
group.id={prefix}
config.storage.topic={prefix}-configs
offset.storage.topic={prefix}-offsets
status.storage.topic={prefix}-status
config.storage.replication.factor=1
offset.storage.replication.factor=1
status.storage.replication.factor=1
plugin.path={ROOT}/build/plugins
listeners=http://127.0.0.1:{port}
offset.flush.interval.ms=1000
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
wasm.cache.dir={OUT}/cache
"""
    text += "".join(e + "\n" for e in EXTRA)
    open(cfg, "w").write(text)
    workers.append({"port": port, "cfg": cfg, "log": os.path.join(OUT, f"worker-{i}.log"), "p": None})


def spawn(i):
    w = workers[i]
    log = open(w["log"], "a")
    w["p"] = subprocess.Popen([BIN, "distributed", w["cfg"]], stdout=subprocess.DEVNULL, stderr=log,
                              env=dict(os.environ, RUST_LOG=os.environ.get("WLOG", "info,wasm_connect_group=debug")))
    ev(f"worker {i} started pid {w['p'].pid}")


def call(i, method, path, body=None, timeout=5):
    url = f"http://127.0.0.1:{workers[i]['port']}{path}"
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            t = r.read()
            return r.status, (json.loads(t) if t else None)
    except urllib.error.HTTPError as e:
        t = e.read()
        try:
            return e.code, json.loads(t)
        except Exception:
            return e.code, t
    except Exception as e:
        return None, str(e)


for i in range(3):
    spawn(i)
for i in range(3):
    while call(i, "GET", "/")[0] != 200:
        time.sleep(0.2)
ev("all answer")

stop = threading.Event()
inputs, outputs = [], []
written = [0] * PIPES


def writer(n, path):
    with open(path, "a") as f:
        k = 0
        while not stop.is_set():
            f.write("".join(f"{k + j}\n" for j in range(RATE)))
            f.flush()
            k += RATE
            written[n] = k
            time.sleep(0.02)


for n in range(PIPES):
    inp, out = os.path.join(OUT, f"in-{n}.txt"), os.path.join(OUT, f"out-{n}.txt")
    open(inp, "w").close()
    inputs.append(inp); outputs.append(out)
    topic = f"{prefix}-data-{n}"
    threading.Thread(target=writer, args=(n, inp), daemon=True).start()
    for name, cfg in [(f"src-{n}", {"connector.class": "FileStreamSource", "tasks.max": "1", "file": inp, "topic": topic,
                                    "topic.creation.default.partitions": "3", "topic.creation.default.replication.factor": "1"}),
                      (f"snk-{n}", {"connector.class": "FileStreamSink", "tasks.max": "1", "file": out, "topics": topic})]:
        while True:
            c, b = call(n % 3, "POST", "/connectors", {"name": name, "config": cfg})
            if c == 201:
                break
            time.sleep(0.3)
ev("created")


def count(path):
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


samples = []


def sampler():
    while not stop.is_set() or True:
        t = time.time() - T0
        samples.append((t, [count(o) for o in outputs], list(written)))
        if stop.is_set() and all(count(o) >= written[i] for i, o in enumerate(outputs)):
            return
        if stop.is_set() and t > deadline:
            return
        time.sleep(0.1)


deadline = 1e9
th = threading.Thread(target=sampler, daemon=True)
th.start()
time.sleep(25)
ev("steady")


def kafka(*args):
    subprocess.run([f"{ROOT}/scripts/kafka.sh", *args], env=dict(os.environ, KAFKA_PORT=str(PORT)),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


if MODE == "outage":
    ev("broker stopping")
    kafka("stop", "--keep-data")
    ev("broker stopped")
    time.sleep(OUTAGE)
    ev("broker starting")
    kafka("start")
    ev("broker started")
    time.sleep(float(os.environ.get("AFTER", "150")))
elif MODE == "kill":
    victim = int(os.environ.get("VICTIM", "1"))
    workers[victim]["p"].kill()
    workers[victim]["p"].wait()
    ev(f"worker {victim} killed")
    time.sleep(float(os.environ.get("AFTER", "90")))
stop.set()
ev("writers stopped")
deadline = time.time() - T0 + 120
th.join()
ev("done")
for w in workers:
    if w["p"] and w["p"].poll() is None:
        w["p"].send_signal(signal.SIGTERM)
for w in workers:
    if w["p"]:
        try:
            w["p"].wait(timeout=30)
        except subprocess.TimeoutExpired:
            w["p"].kill()

# Stall per pipeline: longest window without output growth after "steady".
steady = [t for t, w in events if w == "steady"][0]
with open(os.path.join(OUT, "timeline.txt"), "w") as f:
    for t, w in events:
        f.write(f"{t:8.2f} {w}\n")
    for n in range(PIPES):
        last_t, last_c, longest, at = None, None, 0, None
        for t, c, _ in samples:
            if t < steady:
                continue
            if last_c is None or c[n] != last_c:
                if last_t is not None and t - last_t > longest:
                    longest, at = t - last_t, last_t
                last_t, last_c = t, c[n]
        final = samples[-1][1][n]
        f.write(f"pipeline {n}: longest output stall {longest:.1f} s from {at:.1f}; out {final} lines, written {written[n]}\n")
    # Per second: output counts
    f.write("t  outputs  written\n")
    for t, c, w in samples[::10]:
        f.write(f"{t:7.1f} {c} {w}\n")
print(open(os.path.join(OUT, "timeline.txt")).read()[:3000])
