#!/bin/sh
# The reference solution, run in the workspace.
set -e
cat > index.js <<'EOF'
function capitalize(text) {
  return text.replace(/(^|\s)(\S)/g, (m, sp, c) => sp + c.toUpperCase());
}
module.exports = { capitalize };
EOF
