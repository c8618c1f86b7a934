"""The coach: every decision of a finished hand weighed by the `strong` bot's search.

For each decision of each seat (a bid or pass, the trump or the commitment to one, a
discard, the call, every card with a choice) the coach replays the hand's record to
that moment and asks the search the value of every option, twice: *with what the
seat knew* (worlds sampled from that seat's view alone, as the bot plays) and *with
all cards shown* (the true deal, the hand being over). The loss of a decision is what
the best option was worth more than the one played, in the search's points; a mark
and an accuracy per player follow from the losses (`marks`).

- `decisions`: the record replayed into its decisions (the state before each, who
  decided, what was played, whether there was a choice) and the true deal at each.
- `options`: the options of one decision and their values (the search's own
  evaluation, `engine.bots.search` and `engine.bots.handsim`, never a second search).
- `marks`: a loss's mark, a decision's and a player's accuracy.
- `analysis`: one decision weighed into the protocol's shape (what a worker runs),
  and the whole hand's answer assembled from them.

Everything here is pure (no I/O, clock or global random state): a decision's analysis
is a function of the record, the decision's index and the budget.
"""
