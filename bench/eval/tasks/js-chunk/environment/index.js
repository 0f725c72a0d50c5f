function chunk(items, size) {
  return [items];
}
module.exports = { chunk };
