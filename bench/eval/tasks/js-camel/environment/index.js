function toCamelCase(name) {
  return name;
}
module.exports = { toCamelCase };
