#!/bin/sh
# The reference solution, run in the workspace.
set -e
cat > index.js <<'EOF'
function toCamelCase(name) {
  return name.split(/[-_ ]+/).filter(Boolean).map((w, i) => (i ? w[0].toUpperCase() + w.slice(1) : w)).join('');
}
module.exports = { toCamelCase };
EOF
