#!/bin/sh
# The reference solution, run in the workspace.
set -e
cat > total.js <<'EOF'
const fs = require('fs');
const items = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
console.log(items.reduce((s, x) => s + (x.amount || 0), 0));
EOF
