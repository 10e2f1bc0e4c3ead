"""Database and queue servers from Debian's packages, started by the tests on 127.0.0.1 in a folder of their own:
PostgreSQL (postgresql-15), MariaDB (mariadb-server) and Redis (redis-server). `scripts/setup --test` installs the
packages. As root (CI) the database servers run as their packages' users (postgres, mysql), which refuse root."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

POSTGRES_BIN = Path("/usr/lib/postgresql/15/bin")
MISSING = "run scripts/setup --test (it installs Debian's postgresql, mariadb-server and redis-server)"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as(user: str) -> list[str]:
    """The command prefix that runs a server as ``user`` when we are root."""
    return ["runuser", "-u", user, "--"] if os.geteuid() == 0 else []


def _home(user: str) -> Path:
    """A folder the server's user may write (pytest's own are root's, mode 0700)."""
    folder = Path(tempfile.mkdtemp(prefix=f"refbot-{user}-"))
    folder.chmod(0o755)
    if os.geteuid() == 0:
        shutil.chown(folder, user, user)
    return folder


def _wait_port(port: int, process: subprocess.Popen, log: Path, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server stopped at its start: {log.read_text(errors='replace')[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"the server did not listen on 127.0.0.1:{port} in {seconds:g} s")


@dataclass
class Server:
    kind: str
    port: int
    folder: Path
    process: subprocess.Popen
    user: str = ""
    password: str = ""
    made: list[str] = field(default_factory=list)
    command: list[str] = field(default_factory=list)  # how it was started: :meth:`restart` starts it again

    def url(self, database: str, *, password: bool = True) -> str:
        secret = f":{self.password}" if password and self.password else ""
        scheme = {"postgresql": "postgresql+psycopg", "mariadb": "mysql+pymysql", "redis": "redis"}[self.kind]
        if self.kind == "redis":
            return f"redis://127.0.0.1:{self.port}/{database}"
        return f"{scheme}://{self.user}{secret}@127.0.0.1:{self.port}/{database}"

    def _signal(self, number: int) -> None:
        """To the server and every process it started (as root, ``runuser`` is the process started)."""
        try:
            os.killpg(self.process.pid, number)
        except ProcessLookupError:
            pass

    def stop(self) -> None:
        if self.process.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def kill(self) -> None:
        """Gone at once, as a crashed server (the data stays for :meth:`restart`)."""
        self._signal(signal.SIGKILL)
        self.process.wait()
        time.sleep(0.2)  # its children go too

    def restart(self) -> None:
        """Started again on its port with its data (after :meth:`kill`)."""
        log = self.folder / "log"
        # A killed postmaster's pid file names a process that may linger as a zombie here (nothing reaps it in a
        # container): PostgreSQL would take it for a running server.
        (self.folder / "data" / "postmaster.pid").unlink(missing_ok=True)
        for stale in self.folder.glob(".s.PGSQL.*"):  # its socket's lock file, and the socket
            stale.unlink(missing_ok=True)
        with log.open("ab") as out:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        _wait_port(self.port, self.process, log)
        if self.kind == "postgresql":
            _wait_ready(self)


def start_postgres() -> Server:
    if not (POSTGRES_BIN / "postgres").exists():
        raise RuntimeError(f"PostgreSQL 15 is not installed: {MISSING}")
    user = "postgres" if os.geteuid() == 0 else ""
    folder = _home(user) if user else Path(tempfile.mkdtemp(prefix="refbot-postgres-"))
    data, log, port = folder / "data", folder / "log", free_port()
    prefix = _as(user) if user else []
    subprocess.run([*prefix, str(POSTGRES_BIN / "initdb"), "-D", str(data), "-U", "refbot", "-A", "trust",
                    "--no-sync"], check=True, capture_output=True, timeout=120)
    # fsync off: the tests' data need not outlive a machine's crash (a server killed keeps what it committed)
    command = [*prefix, str(POSTGRES_BIN / "postgres"), "-D", str(data), "-p", str(port),
               "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={folder}",
               "-c", "fsync=off", "-c", "max_connections=200"]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    _wait_port(port, process, log)
    server = Server("postgresql", port, folder, process, user="refbot", command=command)
    _wait_ready(server)
    return server


def start_mariadb() -> Server:
    if shutil.which("mariadbd", path="/usr/sbin:/usr/bin") is None:
        raise RuntimeError(f"MariaDB is not installed: {MISSING}")
    user = "mysql" if os.geteuid() == 0 else ""
    folder = _home(user) if user else Path(tempfile.mkdtemp(prefix="refbot-mariadb-"))
    data, log, port = folder / "data", folder / "log", free_port()
    owner = ["--user=mysql"] if user else []
    subprocess.run(["mariadb-install-db", "--no-defaults", f"--datadir={data}", *owner,
                    "--auth-root-authentication-method=normal", "--skip-test-db"],
                   check=True, capture_output=True, timeout=180)
    with log.open("wb") as out:
        command = ["/usr/sbin/mariadbd", "--no-defaults", f"--datadir={data}", *owner, f"--port={port}",
                   "--bind-address=127.0.0.1", f"--socket={folder}/mysqld.sock", "--skip-name-resolve",
                   "--innodb-flush-log-at-trx-commit=2", "--max-connections=300", f"--pid-file={folder}/mysqld.pid"]
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    _wait_port(port, process, log)
    import pymysql

    root = pymysql.connect(unix_socket=f"{folder}/mysqld.sock", user="root", autocommit=True)
    with root.cursor() as cursor:
        cursor.execute("CREATE USER 'refbot'@'127.0.0.1' IDENTIFIED BY 'refbot-test-secret'")
        cursor.execute("GRANT ALL ON *.* TO 'refbot'@'127.0.0.1'")
    root.close()
    return Server("mariadb", port, folder, process, user="refbot", password="refbot-test-secret", command=command)


def start_redis() -> Server:
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError(f"Redis is not installed: {MISSING}")
    folder, port = Path(tempfile.mkdtemp(prefix="refbot-redis-")), free_port()
    log = folder / "log"
    # Every write in its append-only file: restarted, it has the queue it had (as a broker's Redis is run).
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes",
               "--appendfsync", "always", "--dir", str(folder), "--protected-mode", "yes"]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    _wait_port(port, process, log)
    return Server("redis", port, folder, process, command=command)


def _wait_ready(server: Server, seconds: float = 60.0) -> None:
    """PostgreSQL listens before it takes connections (its start-up recovery)."""
    import psycopg

    deadline = time.monotonic() + seconds
    while True:
        try:
            psycopg.connect(host="127.0.0.1", port=server.port, user=server.user, dbname="postgres").close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def create_database(server: Server, name: str) -> str:
    """A new, empty database on the server; its SQLAlchemy URL."""
    if server.kind == "postgresql":
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=server.port, user=server.user, dbname="postgres",
                             autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
    else:
        import pymysql

        connection = pymysql.connect(host="127.0.0.1", port=server.port, user=server.user, password=server.password,
                                     autocommit=True)
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")  # its default collation ignores case
        connection.close()
    server.made.append(name)
    return server.url(name)
