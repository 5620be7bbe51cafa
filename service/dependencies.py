"""How routes reach what the app's lifespan opened: FastAPI dependencies, not closures.

The lifespan (`service.api.create_app`) opens the store and loads the scorer as the
`Deduplicator`, keeps it in `app.state` while the app runs and closes it on the way out. A
route names what it needs (`dedup: Dedup`); a request that arrives while nothing is open
(before start-up finished, after shutdown began) gets the store's 503 with Retry-After.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from indexer.store import StoreUnavailable
from service.pipeline import Deduplicator


def deduplicator(request: Request) -> Deduplicator:
    """The running app's deduplicator (store + scorer); 503 outside its lifespan."""
    found = getattr(request.app.state, "deduplicator", None)
    if not isinstance(found, Deduplicator):
        raise StoreUnavailable("the service is starting or stopping")
    return found


Dedup = Annotated[Deduplicator, Depends(deduplicator)]
"""A route parameter that receives the running deduplicator."""
