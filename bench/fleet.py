#!/usr/bin/env python3
"""tb-tune at fleet scale on a throwaway PostgreSQL cluster (loopback only).

Three measurements, each on a fresh database:

* queue overhead: N synthetic jobs (`tb-tune worker --synthetic 0`: no compilation, the
  worker only claims, "measures" a hashed latency and commits) drained by 1, 2 and 4
  workers; the time per job of one worker is the per-job cost of the queue (the record,
  the completion, its notification and the next claim in one statement), reported in
  wall time (with the load average, which inflates it) and in CPU time; `--baseline`
  measures another build in turn with this one;
* trials per minute: a coordinator (`tb-tune MODEL --workers K`) tuning a model with K
  local workers that compile and time every candidate;
* soak: 10,000 queued synthetic jobs (`--soak-work` ms each) drained by 4 workers while a
  random worker is killed with SIGKILL (and replaced) every 0.2 to 0.8 s; then the audit
  query, printed with its answer, counts the jobs without a record (lost) and the
  candidates with two records (duplicated).

    python3 bench/fleet.py [--jobs 2000] [--repeat 3] [--trials 16] [--soak 10000]
                           [--soak-work 10] [--skip-overhead] [--skip-trials]
                           [--tb-tune target/release/tb-tune]
                           [--baseline OTHER_TB_TUNE]

Every overhead figure is the median of `--repeat` runs (the binaries taking turns).

PostgreSQL comes from Debian's `postgresql` package (/usr/lib/postgresql/*/bin); under
root the server runs as the `postgres` user, which owns the cluster's directory.
"""

import argparse
import glob
import os
import pwd
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Cluster:
    def __init__(self):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            sys.exit("PostgreSQL is not installed (Debian package postgresql)")
        self.bin = os.path.dirname(bins[-1])
        self.dir = tempfile.mkdtemp(prefix="tb-fleet-")
        self.user = None
        if os.geteuid() == 0:
            self.user = "postgres"
            pw = pwd.getpwnam(self.user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.run("initdb", "-D", self.data, "-U", "tb", "--auth", "trust", "-E", "UTF8",
                 "--no-sync", "--no-instructions")
        opts = (f"-p {self.port} -c listen_addresses=127.0.0.1 "
                f"-c unix_socket_directories={self.dir} -c max_connections=60")
        self.run("pg_ctl", "-D", self.data, "-o", opts, "-l", f"{self.dir}/log", "-w", "start")

    @property
    def data(self):
        return f"{self.dir}/data"

    def run(self, tool, *args, capture=False):
        cmd = [f"{self.bin}/{tool}", *args]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=self.dir)
        return out.stdout

    def database(self, name):
        self.run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "tb", name)
        return f"postgres://tb@127.0.0.1:{self.port}/{name}"

    def sql(self, name, query):
        return self.run("psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "tb", "-d", name,
                        "-v", "ON_ERROR_STOP=1", "-At", "-c", query).strip()

    def close(self):
        try:
            self.run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def worker(tb_tune, location, name, lease=30.0, synthetic=0.0):
    return subprocess.Popen(
        [tb_tune, "worker", "--db", location, "--name", name, "--synthetic", str(synthetic),
         "--lease", str(lease), "--idle-exit", "30"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def prepare_synthetic(cluster, tb_tune, name, jobs):
    """A database with `jobs` synthetic jobs for this machine's target; returns its location."""
    location = cluster.database(name)
    # A first worker creates the schema and registers this machine's target.
    subprocess.run([tb_tune, "worker", "--db", location, "--name", "probe", "--synthetic", "0",
                    "--idle-exit", "0.1"], check=True, capture_output=True)
    cluster.sql(name, f"""
        INSERT INTO tasks (key, summary, ir)
            SELECT 'synthetic' || t, 'synthetic', '' FROM generate_series(0, 99) t;
        INSERT INTO jobs (target_id, task_id, space, decision, description, search,
                          coordinator, max_attempts, created)
            SELECT (SELECT id FROM targets LIMIT 1),
                   (SELECT id FROM tasks WHERE key = 'synthetic' || (i % 100)),
                   'fixed', '[' || i || ']', '[' || i || ']', 'model', 'bench', 3, 0
            FROM generate_series(1, {jobs}) i;
        DELETE FROM workers;""")
    return location


def cpu_seconds(pid):
    """User + system CPU time of a process (all its threads), 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def backends(cluster):
    """The server's processes: the postmaster's children (one backend per connection)."""
    with open(f"{cluster.data}/postmaster.pid") as f:
        postmaster = f.readline().strip()
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", postmaster], capture_output=True,
                         text=True).stdout
    return [int(p) for p in out.split()]


def drain(cluster, name, expected, timeout=1800):
    start = time.monotonic()
    while True:
        done = int(cluster.sql(name, "SELECT count(*) FROM records"))
        if done >= expected:
            return time.monotonic() - start
        if time.monotonic() - start > timeout:
            sys.exit(f"{name}: {done} of {expected} jobs after {timeout} s")
        # Each poll is a psql process: not too often, on a machine of 2 cores.
        time.sleep(0.25)


def stop(procs):
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        p.wait()


AUDIT = """SELECT
  (SELECT count(*) FROM jobs),
  (SELECT count(*) FROM jobs j WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.job_id = j.id)),
  (SELECT count(*) FROM (SELECT target_id, task_id, decision FROM records
       GROUP BY target_id, task_id, decision HAVING count(*) > 1) d),
  (SELECT count(*) FROM jobs WHERE attempts > 1),
  (SELECT count(*) FROM jobs WHERE state = 'failed')"""


def load():
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def overhead(cluster, binaries, jobs, repeat):
    print(f"queue overhead: {jobs} synthetic jobs (no compilation), loopback; "
          f"{os.cpu_count()} cores, load average {load()} (1/5/15 min) at the start")
    print("  wall ms/job/worker: the run's wall time per job and worker, worker start-up"
          " included;")
    print("  steady ms/job/worker: between the first and the last record (start-up"
          " excluded): what a worker waits for the queue per job on this machine, as"
          " loaded as it is;")
    print("  CPU ms/job: the workers' and the server's CPU time per job, which depends"
          " little on the load")
    print(f"  medians of {repeat} runs each")
    print(f"{'binary':>8} {'workers':>8} {'wall s':>8} {'jobs/s':>8} {'wall ms/job/worker':>19} "
          f"{'steady ms/job/worker':>21} {'CPU ms/job':>11}")
    for k in (1, 2, 4):
        runs = {label: [] for label, _ in binaries}
        for r in range(repeat):
            # The binaries take turns, so they see the same load.
            for label, tb_tune in binaries:
                name = f"overhead{k}_{label}_{r}"
                location = prepare_synthetic(cluster, tb_tune, name, jobs)
                server_before = {p: cpu_seconds(p) for p in backends(cluster)}
                start = time.monotonic()
                procs = [worker(tb_tune, location, f"w{i}") for i in range(k)]
                drain(cluster, name, jobs)
                wall = time.monotonic() - start
                cpu = sum(cpu_seconds(p.pid) for p in procs)
                cpu += sum(cpu_seconds(p) - server_before.get(p, 0.0) for p in backends(cluster))
                stop(procs)
                span = float(cluster.sql(name, "SELECT max(created) - min(created) FROM records"))
                runs[label].append((wall, span, cpu))
                cluster.run("dropdb", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "tb", name)
        for label, _ in binaries:
            wall = statistics.median(w for w, _, _ in runs[label])
            span = statistics.median(s for _, s, _ in runs[label])
            cpu = statistics.median(c for _, _, c in runs[label])
            print(f"{label:>8} {k:>8} {wall:>8.2f} {jobs / wall:>8.0f} "
                  f"{wall * k / jobs * 1e3:>19.2f} {span * k / (jobs - 1) * 1e3:>21.2f} "
                  f"{cpu / jobs * 1e3:>11.2f}")
    print(f"load average {load()} at the end")


def trials_per_minute(cluster, tb_tune, trials, repeat):
    model = os.path.join(ROOT, "test/tools/tb-tune/Inputs/mm.mlir")
    print(f"\ntrials per minute: {model} (2 tasks), {trials} trials, workers compile and time;"
          f" medians of {repeat} runs, coordinator start-up included; load average {load()}")
    print(f"{'workers':>8} {'wall s':>8} {'trials/min':>11}")
    for k in (1, 2, 4):
        walls = []
        for r in range(repeat):
            name = f"trials{k}_{r}"
            location = cluster.database(name)
            start = time.monotonic()
            subprocess.run([tb_tune, model, "--db", location, "--workers", str(k),
                            "--trials", str(trials), "--batch", "4"],
                           check=True, capture_output=True)
            walls.append(time.monotonic() - start)
        wall = statistics.median(walls)
        print(f"{k:>8} {wall:>8.1f} {trials / wall * 60:>11.1f}")


def soak(cluster, tb_tune, jobs, work_ms, seed):
    rng = random.Random(seed)
    name = "soak"
    location = prepare_synthetic(cluster, tb_tune, name, jobs)
    print(f"\nsoak: {jobs} synthetic jobs ({work_ms} ms each), 4 workers, lease 1 s, "
          "a random worker SIGKILLed and replaced every 0.2 to 0.8 s")
    procs = [worker(tb_tune, location, f"w{i}", lease=1.0, synthetic=work_ms) for i in range(4)]
    spawned, kills = 4, 0
    start = time.monotonic()
    while int(cluster.sql(name, "SELECT count(*) FROM records")) < jobs:
        time.sleep(rng.uniform(0.2, 0.8))
        victim = rng.randrange(len(procs))
        procs[victim].kill()
        procs[victim].wait()
        kills += 1
        procs[victim] = worker(tb_tune, location, f"w{spawned}", lease=1.0, synthetic=work_ms)
        spawned += 1
        if time.monotonic() - start > 1800:
            sys.exit("soak: not drained in 30 minutes")
    wall = time.monotonic() - start
    stop(procs)
    total, lost, duplicated, retried, failed = cluster.sql(name, AUDIT).split("|")
    print(f"drained in {wall:.1f} s with {kills} workers killed")
    print("audit query:\n" + "\n".join("  " + line for line in AUDIT.splitlines()))
    print(f"audit: {total} jobs, {lost} lost, {duplicated} duplicated, "
          f"{retried} handed out again after a kill, {failed} recorded failed")
    return int(lost) == 0 and int(duplicated) == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tb-tune", default=os.path.join(ROOT, "target/release/tb-tune"))
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each overhead measurement; the table shows their medians")
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--soak", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--soak-work", type=float, default=10.0,
                    help="milliseconds each soak job's synthetic measurement takes")
    ap.add_argument("--skip-overhead", action="store_true")
    ap.add_argument("--skip-trials", action="store_true")
    ap.add_argument("--baseline", metavar="TB_TUNE",
                    help="another tb-tune build whose queue overhead is measured in turn with"
                         " this one's (for example the build before a change)")
    args = ap.parse_args()
    cluster = Cluster()
    try:
        binaries = [("this", args.tb_tune)]
        if args.baseline:
            binaries.insert(0, ("baseline", args.baseline))
        if not args.skip_overhead:
            overhead(cluster, binaries, args.jobs, args.repeat)
        if not args.skip_trials:
            trials_per_minute(cluster, args.tb_tune, args.trials, args.repeat)
        ok = soak(cluster, args.tb_tune, args.soak, args.soak_work, args.seed) if args.soak else True
    finally:
        cluster.close()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
