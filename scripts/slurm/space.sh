#!/bin/bash
# Solves a parameter space on Slurm (docs/cluster.md): a job array of one task per point, then
# one of one task per connection once every point task has ended, then a merge once every
# connection task has ended (whatever their outcomes). Run from the project folder, on a
# filesystem every node sees:
#   scripts/slurm/space.sh spaces/human3d_locomotion.ron results/spaces/human3d_locomotion
# Extra arguments go to every sbatch call (for example --partition=NAME or --time=4:00:00).
# Throttle the arrays with ARRAY_LIMIT=K (at most K tasks at once).
set -euo pipefail
space=${1:?usage: scripts/slurm/space.sh SPACE OUT [sbatch options]}
out=${2:?usage: scripts/slurm/space.sh SPACE OUT [sbatch options]}
shift 2
motionlab=${MOTIONLAB:-motionlab}
here=$(dirname "$0")
read -r points connections < <("$motionlab" space points "$space" --count)
limit=${ARRAY_LIMIT:+%$ARRAY_LIMIT}
last=$(sbatch --parsable --array="0-$((points - 1))$limit" "$@" \
  "$here/space-task.sbatch" "$space" "$out" point)
echo "space $space: $points points in job array $last"
if [ "$connections" -gt 0 ]; then
  last=$(sbatch --parsable --array="0-$((connections - 1))$limit" --dependency="afterany:$last" "$@" \
    "$here/space-task.sbatch" "$space" "$out" connection)
  echo "space $space: $connections connections in job array $last"
fi
merge=$(sbatch --parsable --dependency="afterany:$last" "$@" "$here/space-merge.sbatch" "$space" "$out")
echo "space $space: merge in job $merge, into $out"
