"""Helpers of the feed generators here: FEN placement <-> squares, square
names, clock text as a DGT clock shows it (seconds rounded down)."""


def parse(fen):
    sq = {}
    for r, row in enumerate(fen.split()[0].split("/")):
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                sq[(7 - r, f)] = ch
                f += 1
    return sq


def placement(sq):
    rows = []
    for r in range(7, -1, -1):
        out, run = "", 0
        for f in range(8):
            p = sq.get((r, f))
            if p:
                out += (str(run) if run else "") + p
                run = 0
            else:
                run += 1
        rows.append(out + (str(run) if run else ""))
    return "/".join(rows)


def square(s):
    return (int(s[1]) - 1, ord(s[0]) - ord("a"))


def clock(ms):
    s = max(0, ms) // 1000
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)
