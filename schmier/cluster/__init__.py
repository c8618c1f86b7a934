"""Several instances, one Redis: room leases, forwarding between instances, failover.

See docs/scaling.md for the design. `Node` is this instance's membership (bus channel,
leases) and the rooms' opener; `Follower` serves a room owned by another instance to
this instance's sockets; `bus` defines every message between instances.
"""

from __future__ import annotations

from schmier.cluster.follower import Follower
from schmier.cluster.hub import instance_of
from schmier.cluster.node import Node, default_instance_id

__all__ = ["Follower", "Node", "default_instance_id", "instance_of"]
