"""An independent referee for derived evenings: it reads only what a derivation shows
(seats, points, sit-outs, totals, prizes) and the stored truth, and recomputes the rules
of docs/evening.md on its own. It shares no code with whistkit.evening beyond the data
classes."""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

from whistkit.evening import Derivation, Evening, HandState

TRICKS = 13


def exact(value: float) -> Fraction:
    # credits are averages over at most 60 hands: their denominators are small
    return Fraction(value).limit_denominator(10_000)


def table_of(hand: HandState) -> dict[int, int]:
    return {pid: t.table for t in hand.tables for pid in t.seats}


def partner_in(hand: HandState) -> dict[int, int]:
    return {t.seats[i]: t.seats[(i + 2) % 4] for t in hand.tables for i in range(4)}


def playing_group(evening: Evening) -> dict[int, str]:
    out = {}
    for p in evening.players:
        out[p.id] = p.group if not p.other_group else ("B" if p.group == "A" else "A")
    return out


def check_seating(done: Derivation) -> None:
    """Every player is in exactly one seat or sitting out, in every hand; tables are
    numbered 1..n; points sum to 13; Nóló scores the other side's tricks."""
    ids = {p.id for p in done.evening.players}
    people = {p.id: p for p in done.evening.players}
    for hand in done.hands:
        seated = [pid for t in hand.tables for pid in t.seats]
        out = [s.player for s in hand.sitting_out]
        assert len(seated) == len(set(seated)), f"hand {hand.number}: a player in two seats"
        assert len(out) == len(set(out))
        assert set(seated).isdisjoint(out), f"hand {hand.number}: seated and sitting out"
        assert set(seated) | set(out) == ids, f"hand {hand.number}: a player is nowhere"
        assert [t.table for t in hand.tables] == list(range(1, len(hand.tables) + 1))
        for s in hand.sitting_out:
            p = people[s.player]
            present = p.arrives <= hand.number and (p.leaves is None or hand.number <= p.leaves)
            assert s.reason == ("sit_out" if present else "absent")
        for t in hand.tables:
            for pid in t.seats:
                p = people[pid]
                assert p.arrives <= hand.number and (p.leaves is None or hand.number <= p.leaves)
            assert t.dealer in t.seats
            assert t.points is not None and sum(t.points) == TRICKS
            assert t.ns_tricks is not None
            if hand.contract == "NOLO":
                assert t.points == (TRICKS - t.ns_tricks, t.ns_tricks)
            else:
                assert t.points == (t.ns_tricks, TRICKS - t.ns_tricks)


def check_totals(done: Derivation) -> None:
    """Each total is the player's partnership points plus the sit-out credits, and each
    credit follows the sit-out policy."""
    cfg = done.evening.config
    points: dict[int, list[int]] = defaultdict(list)
    for hand in done.hands:
        for t in hand.tables:
            assert t.points is not None
            for i, pid in enumerate(t.seats):
                points[pid].append(t.points[i % 2])
    for hand in done.hands:
        for s in hand.sitting_out:
            own = points[s.player]
            if (s.reason == "absent" and not cfg.credit_absence) or cfg.sit_out == "nothing":
                want = 0.0
            elif cfg.sit_out == "room_average":
                want = 6.5 if hand.tables else 0.0
            else:
                want = sum(own) / len(own) if own else 0.0
            assert math.isclose(s.points, want, abs_tol=1e-9), (hand.number, s, want)
    credited: dict[int, float] = defaultdict(float)
    for hand in done.hands:
        for s in hand.sitting_out:
            credited[s.player] += s.points
    for p in done.evening.players:
        credits = credited[p.id]
        assert math.isclose(done.totals[p.id], sum(points[p.id]) + credits, abs_tol=1e-9)
        assert done.hands_played[p.id] == len(points[p.id])


def check_groups(done: Derivation) -> None:
    """In every preset but "partner", each partnership is one A and one B player."""
    if done.evening.config.preset == "partner":
        return
    group = playing_group(done.evening)
    for hand in done.hands:
        for t in hand.tables:
            n, e, s, w = t.seats
            assert {group[n], group[s]} == {"A", "B"}, (hand.number, t)
            assert {group[e], group[w]} == {"A", "B"}, (hand.number, t)


def round_winners(done: Derivation, last: int) -> dict[int, int]:
    """Table -> the side (0 N-S, 1 E-W) that won the round ending with hand ``last``:
    more points over the round; equal, the winner of its last hand."""
    k = done.evening.config.hands_per_move
    first = last - (last - 1) % k
    out = {}
    for t in done.hands[last - 1].tables:
        ns = ew = 0
        for h in range(first, last + 1):
            if t.table > len(done.hands[h - 1].tables):
                continue  # the table opened within the round
            pts = done.hands[h - 1].tables[t.table - 1].points
            assert pts is not None
            ns, ew = ns + pts[0], ew + pts[1]
        if ns == ew:
            pts = t.points
            assert pts is not None
            out[t.table] = 0 if pts[0] > pts[1] else 1
        else:
            out[t.table] = 0 if ns > ew else 1
    return out


def check_movement(done: Derivation) -> None:
    """The movement rule of the preset, hand to hand, for an evening without fixed-seat
    players, in the hands where the number of tables does not change: within a round
    everyone keeps their seat; after a round, by the preset (docs/evening.md)."""
    ev = done.evening
    assert not any(p.fixed_seat for p in ev.players)
    preset, k = ev.config.preset, ev.config.hands_per_move
    group = playing_group(ev)
    for h in range(1, len(done.hands)):
        now, nxt = done.hands[h - 1], done.hands[h]
        count = len(now.tables)
        if len(nxt.tables) != count or count == 0:
            continue
        where = table_of(nxt)
        if h % k:  # within a round
            before, after = partner_in(now), partner_in(nxt)
            for t in now.tables:
                for i, pid in enumerate(t.seats):
                    if preset == "partner" and after.get(pid) != before[pid]:
                        continue  # a partnership re-formed after a departure
                    if pid in where:
                        assert nxt.tables[t.table - 1].seats[i] == pid, (h, pid)
                # the deal passes to the left when the table is unchanged
                if set(nxt.tables[t.table - 1].seats) == set(t.seats):
                    nt = nxt.tables[t.table - 1]
                    assert nt.seats.index(nt.dealer) == (t.seats.index(t.dealer) + 1) % 4
            continue
        winners = round_winners(done, h)
        partner = partner_in(nxt)
        for t in now.tables:
            win = winners[t.table]
            up_one, down_one = t.table % count + 1, (t.table - 2) % count + 1
            w_side = [t.seats[win], t.seats[win + 2]]
            l_side = [t.seats[1 - win], t.seats[3 - win]]
            expect: dict[int, int] = {}
            if preset == "partner":
                # a partnership that lost a player (left) is re-formed from those without
                # one: only the partnerships that play on together are bound by the rule
                for side, dest in ((w_side, up_one), (l_side, t.table)):
                    if partner.get(side[0]) == side[1]:
                        expect[side[0]] = expect[side[1]] = dest
            else:
                movers, stayers = (w_side, l_side) if preset != "semi-partner" else (l_side, w_side)
                for pid in movers:
                    expect[pid] = up_one if group[pid] == "A" else down_one
                for pid in stayers:
                    expect[pid] = t.table
            for pid, dest in expect.items():
                if pid in where:
                    assert where[pid] == dest, (preset, h, t.table, pid, where[pid], dest)
            nt = nxt.tables[t.table - 1]
            if preset == "partner":
                for a, b in (w_side, l_side):
                    if a in where and b in where and where[a] == where[b]:
                        assert partner[a] == b, "partners stay together"
                if all(p in nt.seats for p in l_side):
                    assert nt.dealer in l_side
                continue
            stay_a = next(p for p in stayers if group[p] == "A")
            stay_b = next(p for p in stayers if group[p] == "B")
            if stay_a in nt.seats:
                assert nt.dealer == stay_a, (h, t.table)  # the staying A deals
            if preset == "semi-partner":
                # the winners stay together; the arrivals partner each other
                if stay_a in nt.seats and stay_b in nt.seats:
                    assert partner[stay_a] == stay_b, (h, t.table)
                continue
            # the staying partnership splits; each partners an arrival
            if stay_a in nt.seats and stay_b in nt.seats:
                assert partner[stay_a] != stay_b, (h, t.table)
            for pid in (stay_a, stay_b):
                if pid in nt.seats:
                    assert partner[pid] not in stayers


def check_fixed(done: Derivation) -> None:
    """A fixed-seat player sits out only when everyone else of their group present does,
    and, while there are at least as many tables as fixed-seat players, keeps their table
    and seat letter in every hand they play (if they never had to sit out)."""
    ev = done.evening
    fixed = [p.id for p in ev.players if p.fixed_seat]
    if not fixed:
        return
    group = playing_group(ev)
    sat_out: set[int] = set()
    for hand in done.hands:
        out = {s.player for s in hand.sitting_out if s.reason == "sit_out"}
        sat_out |= out & set(fixed)
        if (hand.number - 1) % ev.config.hands_per_move:
            continue  # within a round only those without a seat sit out (docs/evening.md)
        for pid in out & set(fixed):
            present = [q for q in out if group[q] == group[pid]]
            present += [q for t in hand.tables for q in t.seats if group[q] == group[pid]]
            if ev.config.preset != "partner":
                assert all(q in out for q in present if q not in fixed), (hand.number, pid)
    if min(len(h.tables) for h in done.hands) < len(fixed):
        return
    seen: dict[int, tuple[int, str]] = {}
    for hand in done.hands:
        for t in hand.tables:
            for i, pid in enumerate(t.seats):
                if pid in fixed and pid not in sat_out:
                    here = (t.table, "NESW"[i])
                    assert seen.setdefault(pid, here) == here, (hand.number, pid, here)


def missed_before(done: Derivation) -> list[dict[int, int]]:
    """missed[h-1][pid]: hands before h the player did not play (sat out or absent)."""
    out = []
    count = {p.id: 0 for p in done.evening.players}
    for hand in done.hands:
        out.append(dict(count))
        for s in hand.sitting_out:
            count[s.player] += 1
    return out


def check_rotation(done: Derivation) -> None:
    """Sit-outs rotate: at each move, nobody (not fixed) sits out while someone of their
    group (the whole room in "partner") who has missed fewer hands plays."""
    ev = done.evening
    cfg = ev.config
    group = playing_group(ev)
    if cfg.preset == "partner":
        present_all = all(p.arrives == 1 and p.leaves is None for p in ev.players)
        if not present_all or len(ev.players) % 2:
            return  # partnerships broken or an odd one out: see the partner rules
        group = dict.fromkeys(group, "all")
    fixed = {p.id for p in ev.players if p.fixed_seat}
    missed = missed_before(done)
    for hand in done.hands:
        if (hand.number - 1) % cfg.hands_per_move:
            continue
        before = missed[hand.number - 1]
        if cfg.preset == "partner":
            # a fixed-seat player's partnership is kept at its table as a whole
            mates = partner_in(hand)
            fixed = {p.id for p in ev.players if p.fixed_seat}
            fixed |= {mates[p] for p in fixed if p in mates}
        least_playing: dict[str, int] = {}
        for t in hand.tables:
            for pid in t.seats:
                if pid not in fixed:
                    g = group[pid]
                    least_playing[g] = min(least_playing.get(g, 10**9), before[pid])
        for s in hand.sitting_out:
            if s.reason == "sit_out" and s.player not in fixed:
                g = group[s.player]
                assert before[s.player] <= least_playing.get(g, 10**9), (hand.number, s.player)


def check_rotation_literal(done: Derivation) -> None:
    """The issue's words, for an evening where everyone is there throughout and hands are
    moved one at a time: no player sits out twice before every player of their group has
    sat out once."""
    ev = done.evening
    group = playing_group(ev)
    if ev.config.preset == "partner":
        if len(ev.players) % 2:
            return
        group = dict.fromkeys(group, "all")
    sat: dict[int, int] = {p.id: 0 for p in ev.players}
    for hand in done.hands:
        out = [s.player for s in hand.sitting_out]
        for pid in out:
            if sat[pid] >= 1:
                same = [q for q in sat if group[q] == group[pid]]
                # those sitting out for the first time in this same hand count as well
                assert all(sat[q] >= 1 or q in out for q in same), (hand.number, pid)
        for pid in out:
            sat[pid] += 1


def competition_places(
    ids: list[int], key: dict[int, tuple[Fraction, ...]]
) -> list[tuple[int, list[int]]]:
    """Best first by ``key`` (larger better); equal keys share a place (1, 1, 3)."""
    ordered = sorted(ids, key=lambda p: key[p], reverse=True)
    out: list[tuple[int, list[int]]] = []
    for n, pid in enumerate(ordered):
        if n and key[pid] == key[ordered[n - 1]]:
            out[-1][1].append(pid)
        else:
            out.append((n + 1, [pid]))
    return out


def check_prizes(done: Derivation) -> None:
    """Prizes follow the totals and the tie rule (recomputed here from the hands)."""
    ev = done.evening
    rules = ev.config.prizes
    per_hand: dict[int, list[Fraction]] = {p.id: [] for p in ev.players}
    played = dict.fromkeys(per_hand, 0)
    ten = dict.fromkeys(per_hand, 0)
    for hand in done.hands:
        for t in hand.tables:
            assert t.points is not None
            for i, pid in enumerate(t.seats):
                per_hand[pid].append(Fraction(t.points[i % 2]))
                played[pid] += 1
                ten[pid] += t.points[i % 2] >= 10
        for s in hand.sitting_out:
            per_hand[s.player].append(exact(s.points))
    total = {pid: sum(v, Fraction(0)) for pid, v in per_hand.items()}
    for pid, value in total.items():
        assert math.isclose(float(value), done.totals[pid], abs_tol=1e-9)
    longest = dict.fromkeys(per_hand, 0)
    run: dict[int, tuple[int, int]] = {}
    for hand in done.hands:
        now = {}
        for t in hand.tables:
            for pid in t.seats:
                last_table, length = run.get(pid, (0, 0))
                now[pid] = (t.table, length + 1 if last_table == t.table else 1)
                longest[pid] = max(longest[pid], now[pid][1])
        run = now
    eligible = [pid for pid in per_hand if played[pid] > 0]
    group_of = {
        p.id: (playing_group(ev)[p.id] if rules.group_by == "playing" else p.group)
        for p in ev.players
    }

    def suffixes(pid: int) -> tuple[Fraction, ...]:
        out, running = [], Fraction(0)
        for x in reversed(per_hand[pid]):
            running += x
            out.append(running)
        return tuple(out)

    got: dict[str, list[tuple[int, tuple[int, ...]]]] = defaultdict(list)
    for prize in done.prizes:
        got[prize.category].append((prize.place, prize.players))

    def expect(
        category: str,
        among: list[int],
        value: dict[int, Fraction],
        top: int,
        sign: int,
        countback: bool,
    ) -> None:
        if top <= 0 or not among:
            assert category not in got, category
            return
        if rules.ties == "lots":
            places = got[category]
            assert [pl for pl, _ in places] == list(range(1, len(places) + 1))
            assert all(len(who) == 1 for _, who in places)
            winners = [who[0] for _, who in places]
            assert len(winners) == min(top, len(among))
            vals = [sign * value[p] for p in winners]
            assert vals == sorted(vals, reverse=True)
            rest = [sign * value[p] for p in among if p not in winners]
            assert not rest or max(rest) <= vals[-1]
            return
        if rules.ties == "countback" and countback:
            key = {p: (sign * value[p], *(sign * x for x in suffixes(p))) for p in among}
        else:
            key = {p: (sign * value[p],) for p in among}
        want = [(pl, tuple(sorted(who))) for pl, who in competition_places(among, key) if pl <= top]
        assert got.get(category, []) == want, (category, got.get(category), want)

    expect("top", eligible, total, rules.top, 1, True)
    for g in ("A", "B"):
        among = [p for p in eligible if group_of[p] == g]
        expect(f"top_{g}", among, total, rules.top_per_group, 1, True)
    expect("lowest", eligible, total, int(rules.lowest), -1, True)
    lengths = {p: Fraction(longest[p]) for p in eligible}
    expect("longest_at_table", eligible, lengths, int(rules.longest_at_table), 1, False)
    tens = {p: Fraction(ten[p]) for p in eligible if ten[p]}
    expect("ten_tricks", list(tens), tens, int(rules.ten_tricks), 1, False)
    known = {"top", "top_A", "top_B", "lowest", "longest_at_table", "ten_tricks"}
    assert set(got) <= known


def check_all(done: Derivation, *, movement: bool) -> None:
    check_seating(done)
    check_totals(done)
    check_groups(done)
    check_fixed(done)
    check_rotation(done)
    check_prizes(done)
    if movement:
        check_movement(done)
