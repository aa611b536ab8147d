#!/bin/bash
# Solves a parameter space on Slurm (docs/cluster.md): a job array of one task per point, then a
# merge that runs once every task has ended (whatever their outcome). Run from the project
# folder, on a filesystem every node sees:
#   scripts/slurm/space.sh spaces/human3d_locomotion.ron results/spaces/human3d_locomotion
# Extra arguments go to both sbatch calls (for example --partition=NAME or --time=4:00:00).
# Throttle the array with ARRAY_LIMIT=K (at most K points at once).
set -euo pipefail
space=${1:?usage: scripts/slurm/space.sh SPACE OUT [sbatch options]}
out=${2:?usage: scripts/slurm/space.sh SPACE OUT [sbatch options]}
shift 2
motionlab=${MOTIONLAB:-motionlab}
here=$(dirname "$0")
points=$("$motionlab" space points "$space" --count)
array="0-$((points - 1))${ARRAY_LIMIT:+%$ARRAY_LIMIT}"
tasks=$(sbatch --parsable --array="$array" "$@" "$here/space-point.sbatch" "$space" "$out")
merge=$(sbatch --parsable --dependency="afterany:$tasks" "$@" "$here/space-merge.sbatch" "$space" "$out")
echo "space $space: $points points in job array $tasks, merge in job $merge, into $out"
