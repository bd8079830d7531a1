// XML escaping for the serialiser. Attribute values also escape tab/newline/CR as character
// references: a literal newline would be normalised to a space by the next parser (XML 1.0 §3.3.3).

const TEXT_SPECIAL = /[&<>]/;
const ATTR_SPECIAL = /[&<>"\t\n\r]/;

export function escapeText(value: string): string {
  if (!TEXT_SPECIAL.test(value)) return value;
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(value: string): string {
  if (!ATTR_SPECIAL.test(value)) return value;
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}
