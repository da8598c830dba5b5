/**
 * A count with its noun in the right number: `plural(1, 'ref')` → `"1 ref"`, `plural(3, 'ref')` → `"3 refs"`,
 * `plural(2, 'match', 'matches')` → `"2 matches"`.
 * @param count  the number shown (written as given)
 * @param one  the singular noun
 * @param many  the plural noun (default: `one` + "s")
 */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
