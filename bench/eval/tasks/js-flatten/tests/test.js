const assert = require('assert');
const { flatten } = require('./index.js');
assert.deepStrictEqual(flatten([1, [2, [3, [4]]], 5]), [1, 2, 3, 4, 5]);
assert.deepStrictEqual(flatten([]), []);
console.log('ok');
