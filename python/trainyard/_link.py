"""The socket to the orchestrator (TRAINYARD_CONNECT), owned by a daemon thread."""

from __future__ import annotations

import collections
import itertools
import os
import select
import socket
import threading
import time
from typing import Callable, Deque, Tuple

from ._protocol import LineSplitter, control_of

#: Lines queued for the socket while it is slow or disconnected; the oldest go.
MAX_QUEUED_LINES = 10000
_MSG_NOSIGNAL = getattr(socket, "MSG_NOSIGNAL", 0)
#: Lines the thread takes from the queue at once, and bytes it sends at once, at most.
_BATCH_LINES = 1024
_SEND_BYTES = 256 * 1024
#: After sending, how long the thread waits for more lines before it sleeps (ms): the
#: latency a line may get during a burst, which makes one send of its lines.
_LINGER_MS = 5


def parse_connect(text: str) -> Tuple:
    """"unix:PATH" -> ("unix", PATH); "tcp:HOST:PORT" -> ("tcp", HOST, PORT)."""
    if text.startswith("unix:") and len(text) > 5:
        return ("unix", text[5:])
    if text.startswith("tcp:"):
        host, _, port = text[4:].rpartition(":")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        if host and port.isdigit() and 1 <= int(port) <= 65535:
            return ("tcp", host, int(port))
    raise ValueError("TRAINYARD_CONNECT: expected unix:PATH or tcp:HOST:PORT, got %r" % text)


class Link:
    """The socket to the orchestrator, owned by a daemon thread.

    Connects (hello first on every connection), sends queued lines, reads
    control lines, and reconnects with backoff (100 ms doubling to 5 s, reset
    after a successful connection). put() never blocks on the socket, and
    costs the caller no lock: it appends to a deque (atomic in CPython) and
    wakes the thread through a pipe only when the thread sleeps, so lines
    logged in a burst reach the socket in few large sends.
    """

    def __init__(self, address: Tuple, hello: Callable[[], bytes], on_control: Callable[[str], None]) -> None:
        self._address = address
        self._hello = hello
        self._on_control = on_control
        self._cond = threading.Condition()  # flush() and close() wait on it
        self._outbox: Deque[bytes] = collections.deque(maxlen=MAX_QUEUED_LINES)
        self._inflight = 0  # lines taken from the outbox, not yet fully sent
        self._closing = False
        self._sleeping = False  # the thread waits in poll(): put() must wake it
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self.connected = False
        self._down = False  # a connection attempt failed, or the connection was lost
        self._lines = LineSplitter()
        self._thread = threading.Thread(target=self._main, name="trainyard-socket", daemon=True)
        self._thread.start()

    def put(self, line: bytes) -> None:
        self._outbox.append(line)  # a full deque drops the oldest line
        if self._sleeping:
            self._wake()

    def flush(self, timeout: float) -> bool:
        """Wait until everything queued is sent, the socket is down, or timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._outbox or self._inflight:
                left = deadline - time.monotonic()
                if left <= 0 or (self._down and not self.connected):
                    return False
                self._cond.wait(min(left, 0.01))
        return True

    def close(self) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._wake()
        self._thread.join(1.0)
        if not self._thread.is_alive():
            fds, self._wake_read, self._wake_write = (self._wake_read, self._wake_write), -1, -1
            for fd in fds:
                os.close(fd)

    def _wake(self) -> None:
        self._sleeping = False
        if self._wake_write >= 0:  # closed: never a write to a number another file may have now
            try:
                os.write(self._wake_write, b"w")
            except OSError:  # the pipe is full: the thread has wake-ups pending
                pass

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_read, 4096):
                pass
        except OSError:  # BlockingIOError: empty
            pass

    def _sleep(self, seconds: float) -> None:
        with self._cond:
            self._cond.wait_for(lambda: self._closing, seconds)

    def _main(self) -> None:
        delay = 0.1
        while not self._closing:
            try:
                sock = self._connect()
            except Exception:
                with self._cond:
                    self._down = True
                    self._cond.notify_all()
                self._sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            delay = 0.1
            try:
                self._serve(sock)
            except Exception:
                pass
            finally:
                with self._cond:
                    self.connected = False
                    self._down = True
                    self._inflight = 0
                    self._cond.notify_all()
                close_quietly(sock)
            self._sleep(delay)

    def _connect(self) -> socket.socket:
        if self._address[0] == "unix":
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(5.0)
                sock.connect(self._address[1])
            except BaseException:
                sock.close()
                raise
        else:
            sock = socket.create_connection(self._address[1:], timeout=5.0)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
        return sock

    def _serve(self, sock: socket.socket) -> None:
        hello = self._hello()
        pending: Deque[bytes] = collections.deque([hello])
        offset = 0  # bytes of pending[0] already sent
        self._lines.clear()
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        poller.register(self._wake_read, select.POLLIN)
        outbox = self._outbox
        with self._cond:
            self.connected = True
            self._down = False
        lingering = False
        try:
            while not self._closing:
                while outbox and len(pending) < _BATCH_LINES:
                    pending.append(outbox.popleft())
                if self._inflight != len(pending):
                    with self._cond:
                        self._inflight = len(pending)
                        self._cond.notify_all()
                timeout = None
                if pending:
                    lingering = True
                elif lingering:
                    # Lines came lately: more of a burst are likely. Waiting a
                    # little for them (without being woken) sends them together.
                    timeout, lingering = _LINGER_MS, False
                else:
                    # Asleep until put() or close() writes to the pipe, or the peer sends.
                    self._sleeping = True
                    if outbox:  # put() came before the flag was up
                        self._sleeping = False
                        continue
                poller.modify(sock, select.POLLIN | (select.POLLOUT if pending else 0))
                events = poller.poll(timeout)
                self._sleeping = False
                for fd, mask in events:
                    if fd == self._wake_read:
                        self._drain_wake()
                    elif mask & (select.POLLIN | select.POLLHUP | select.POLLERR | select.POLLNVAL):
                        self._receive(sock)
                    if fd != self._wake_read and mask & select.POLLOUT and pending:
                        offset = self._send(sock, pending, offset)
        except Exception:
            # A line cut by the disconnection is lost on the socket (the file
            # has it); the complete lines not yet sent go back to the queue.
            if pending and (offset > 0 or pending[0] is hello):
                pending.popleft()
            room = MAX_QUEUED_LINES - len(outbox)
            keep = list(pending)[max(0, len(pending) - room):] if room > 0 else []
            outbox.extendleft(reversed(keep))
            raise
        finally:
            try:  # read what the peer sent, so that closing TCP sends no RST
                while sock.recv(65536):
                    pass
            except OSError:
                pass

    @staticmethod
    def _send(sock: socket.socket, pending: Deque[bytes], offset: int) -> int:
        parts = [memoryview(pending[0])[offset:]]
        size = len(parts[0])
        for line in itertools.islice(pending, 1, None):
            if size >= _SEND_BYTES:
                break
            parts.append(line)
            size += len(line)
        try:
            sent = sock.send(b"".join(parts), _MSG_NOSIGNAL)
        except BlockingIOError:
            return offset
        while sent:
            rest = len(pending[0]) - offset
            if sent < rest:
                return offset + sent
            sent -= rest
            pending.popleft()
            offset = 0
        return offset

    def _receive(self, sock: socket.socket) -> None:
        try:
            data = sock.recv(65536)
        except BlockingIOError:
            return
        if not data:
            raise ConnectionError("the orchestrator closed the connection")
        for line in self._lines.feed(data):
            kind = control_of(line)
            if kind is not None:
                try:
                    self._on_control(kind)
                except Exception:
                    pass


def close_quietly(sock: socket.socket) -> None:
    try:
        sock.close()
    except OSError:
        pass
