#!/bin/sh
# The reference solution, run in the workspace.
set -e
printf '#!/bin/sh\necho running\n' > scripts/run.sh
chmod +x scripts/run.sh
