const assert = require('assert');
const { capitalize } = require('./index.js');
assert.strictEqual(capitalize('hello big world'), 'Hello Big World');
assert.strictEqual(capitalize('  two  spaces'), '  Two  Spaces');
assert.strictEqual(capitalize(''), '');
console.log('ok');
