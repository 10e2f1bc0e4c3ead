"""Runs that many worker processes share, on any number of machines: the worklist enqueued as tasks on a Celery
queue (Redis broker), each task checked by `refbot worker` exactly as `refbot run` checks an item, every statement
recorded once in the shared ledger (``bot.ledger``), each host's turn held in Redis for all workers."""
