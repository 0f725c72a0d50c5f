const assert = require('assert');
const { chunk } = require('./index.js');
assert.deepStrictEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
assert.deepStrictEqual(chunk([], 3), []);
assert.throws(() => chunk([1], 0), RangeError);
console.log('ok');
