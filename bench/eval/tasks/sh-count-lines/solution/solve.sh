#!/bin/sh
# The reference solution, run in the workspace.
set -e
printf '#!/bin/sh\ncat ./*.log | wc -l | tr -d " "\n' > count.sh
chmod +x count.sh
