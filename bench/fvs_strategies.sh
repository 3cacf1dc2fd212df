#!/usr/bin/env bash
# Feature vector selection: fitness (eq. 7 of Baudat & Anouar) and cost of each candidate-scoring
# strategy on the same HIGGS-like points, as `kern fvs` reports them.
#
# usage: bench/fvs_strategies.sh [KERN] [N] [M] [STRATEGY...]
#   KERN      the kern binary (default: target/release/kern)
#   N         points (default 10000: the default FVS pool of --landmarks fvs:2000)
#   M         feature vectors (default 1000)
#   STRATEGY  default: stochastic sampled:64 max-residual exact
# Writes its data and JSON to $TMPDIR/fvs-strategies/; prints one line per strategy: wall and user
# seconds, peak RSS (MiB), vectors selected, final fitness.
set -euo pipefail
kern=${1:-target/release/kern}
n=${2:-10000}
m=${3:-1000}
shift $(($# < 3 ? $# : 3))
strategies=("$@")
[ ${#strategies[@]} -eq 0 ] && strategies=(stochastic sampled:64 max-residual exact)
dir=${TMPDIR:-/tmp}/fvs-strategies
mkdir -p "$dir"
data=$dir/higgs_like_$n.csv
[ -f "$data" ] || python3 "$(dirname "$0")/higgs_like.py" --n "$n" --seed 1 --out "$data"
printf '%-14s %8s %8s %9s %6s %s\n' strategy wall_s user_s rss_mib fvs fitness
for s in "${strategies[@]}"; do
    out=$dir/${s//:/_}.json
    /usr/bin/time -f '%e %U %M' -o "$dir/time" "$kern" fvs --data "$data" --kernel gaussian:sigma=8.1 \
        --max-fv "$m" --strategy "$s" -q > "$out"
    read -r wall user rss < "$dir/time"
    python3 - "$out" "$s" "$wall" "$user" "$rss" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
fit = r["fitness"][-1] if r.get("fitness") else float("nan")
print(f"{sys.argv[2]:<14} {float(sys.argv[3]):8.1f} {float(sys.argv[4]):8.1f} {int(sys.argv[5]) / 1024:9.0f} "
      f"{len(r['selected']):6d} {fit:.6f}")
EOF
done
