function capitalize(text) {
  return text;
}
module.exports = { capitalize };
