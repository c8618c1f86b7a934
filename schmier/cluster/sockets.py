"""A follower's sockets: what it holds of each, and how a frame the owner sends one of
them reaches it.

The owner sends a socket of another instance its `error` frames, chat lines and, right
after seating it, the room's chat history. The history must come after the socket's
first state, which the socket's own instance sends once the owner has answered the
hello; so what arrives before that is held, and sent after the state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from schmier.rooms.chat import HISTORY_PREFIX
from schmier.rooms.peers import Peer


@dataclass
class Socket:
    """One of this instance's sockets in the room."""

    peer: Peer
    pid: str
    token_hash: str | None
    """The hash of the token the socket said hello with (None for a spectator)."""
    early: list[bytes] = field(default_factory=list)
    """Frames the owner sent the socket before this instance sent its first state (the
    chat history, chat lines): held until then."""

    def started(self, first_state: bytes) -> None:
        """Send the socket's first state, then what was held for it."""
        self.peer.send(first_state)
        for data in self.early:
            self.peer.send(data)
        self.early.clear()


def deliver(served: Socket | None, greeting: Iterable[Socket], pid: str, data: bytes) -> None:
    """A frame the owner sent socket `pid`: `served` if this instance already sent it its
    first state, else among the sockets still `greeting` (saying hello).

    A served socket gets it at once, except a chat history: that is a new owner's answer
    to registering the socket again, and a socket gets one history, once. A greeting
    socket gets it after its first state; a history from a newer owner (a hello resent
    to it) holds every line held so far, and replaces them.
    """
    if served is not None:
        if not data.startswith(HISTORY_PREFIX):
            served.peer.send(data)
        return
    for sock in greeting:
        if sock.pid == pid:
            if data.startswith(HISTORY_PREFIX):
                sock.early.clear()
            sock.early.append(data)
            return
