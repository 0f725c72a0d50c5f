function flatten(items) {
  return [].concat(...items);
}
module.exports = { flatten };
