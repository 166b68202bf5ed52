"""Data-race detection: who touched which byte of an arena since the last barrier.

An `AccessLog` remembers, per byte, the last agent (a thread within one barrier
interval, or a block within one launch) that wrote it, one agent that read it, and
whether more than one agent read it. Two different agents touching the same byte
while the log is open, at least one of them writing, is a race. All bookkeeping is
vectorised over the bytes of one memory access of every active thread at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NO_AGENT = -1


@dataclass(frozen=True)
class Access:
    """One side of a race: who did what through which Func."""

    agent: int
    """The thread's linear id within its block, or the block's linear id."""
    is_write: bool
    func: str

    @property
    def verb(self) -> str:
        return "writes" if self.is_write else "reads"


@dataclass(frozen=True)
class Conflict:
    """Two agents touching `byte` of one arena, at least one of them writing."""

    byte: int
    earlier: Access
    later: Access


class AccessLog:
    """Per-byte access history of one arena since the log was last cleared."""

    def __init__(self, nbytes: int, func_names: list[str]):
        """A log for an arena of `nbytes` bytes. Its arrays cover only the bytes up to the
        highest one touched so far, so bookkeeping grows with use, not with the arena."""
        self._func_names = func_names
        self.writer = np.full(0, NO_AGENT, np.int32)
        self.writer_func = np.zeros(0, np.int32)
        self.reader = np.full(0, NO_AGENT, np.int32)
        self.reader_func = np.zeros(0, np.int32)
        self.many_readers = np.zeros(0, np.bool_)
        self._dirty = False

    def grow(self, nbytes: int) -> None:
        """Extends the log to cover bytes [0, nbytes) (at least doubling, to amortise)."""
        extra = nbytes - self.writer.size
        if extra <= 0:
            return
        extra = max(extra, self.writer.size)
        self.writer = np.concatenate([self.writer, np.full(extra, NO_AGENT, np.int32)])
        self.writer_func = np.concatenate([self.writer_func, np.zeros(extra, np.int32)])
        self.reader = np.concatenate([self.reader, np.full(extra, NO_AGENT, np.int32)])
        self.reader_func = np.concatenate([self.reader_func, np.zeros(extra, np.int32)])
        self.many_readers = np.concatenate([self.many_readers, np.zeros(extra, np.bool_)])

    def clear(self) -> None:
        if self._dirty:
            self.writer.fill(NO_AGENT)
            self.reader.fill(NO_AGENT)
            self.many_readers.fill(False)
            self._dirty = False

    def record(
        self, addresses: np.ndarray, agents: np.ndarray, is_write: bool, func_id: int
    ) -> Conflict | None:
        """Log one access (`addresses[i]` touched by `agents[i]`); return a race if any."""
        self._dirty = True
        if addresses.size:
            self.grow(int(addresses.max()) + 1)
        conflict = self._check(addresses, agents, is_write, func_id)
        if is_write:
            self.writer[addresses] = agents
            self.writer_func[addresses] = func_id
        else:
            previous = self.reader[addresses]
            other = (previous != NO_AGENT) & (previous != agents)
            self.many_readers[addresses[other]] = True
            shared = _bytes_shared_by_agents(addresses, agents)
            if shared is not None:
                # Several agents read the same byte in this one access.
                self.many_readers[shared[0]] = True
            fresh = previous == NO_AGENT
            self.reader[addresses[fresh]] = agents[fresh]
            self.reader_func[addresses[fresh]] = func_id
        return conflict

    def _check(
        self, addresses: np.ndarray, agents: np.ndarray, is_write: bool, func_id: int
    ) -> Conflict | None:
        func = self._func_names[func_id]
        writer = self.writer[addresses]
        clash = (writer != NO_AGENT) & (writer != agents)
        if clash.any():
            i = int(np.argmax(clash))
            byte = int(addresses[i])
            earlier = Access(int(writer[i]), True, self._func_names[int(self.writer_func[byte])])
            return Conflict(byte, earlier, Access(int(agents[i]), is_write, func))
        if not is_write:
            return None
        reader = self.reader[addresses]
        many = self.many_readers[addresses]
        clash = (reader != NO_AGENT) & ((reader != agents) | many)
        if clash.any():
            i = int(np.argmax(clash))
            byte = int(addresses[i])
            other = int(reader[i])
            if other == int(agents[i]):
                other = NO_AGENT  # the log kept this writer as reader; another one read too
            earlier = Access(other, False, self._func_names[int(self.reader_func[byte])])
            return Conflict(byte, earlier, Access(int(agents[i]), True, func))
        shared = _bytes_shared_by_agents(addresses, agents)
        if shared is not None:
            bytes_, first, second = shared
            return Conflict(
                int(bytes_[0]),
                Access(int(first[0]), True, func),
                Access(int(second[0]), True, func),
            )
        return None


def _bytes_shared_by_agents(
    addresses: np.ndarray, agents: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Bytes that two different agents touch in one access, with the two agents."""
    if addresses.size < 2 or np.unique(addresses).size == addresses.size:
        return None
    order = np.lexsort((agents, addresses))
    sorted_addresses, sorted_agents = addresses[order], agents[order]
    shared = (sorted_addresses[1:] == sorted_addresses[:-1]) & (
        sorted_agents[1:] != sorted_agents[:-1]
    )
    if not shared.any():
        return None
    return sorted_addresses[1:][shared], sorted_agents[:-1][shared], sorted_agents[1:][shared]
