const assert = require('assert');
const { toCamelCase } = require('./index.js');
assert.strictEqual(toCamelCase('foo-bar_baz qux'), 'fooBarBazQux');
assert.strictEqual(toCamelCase('already'), 'already');
assert.strictEqual(toCamelCase('a--b'), 'aB');
console.log('ok');
