/**
 * The stock of Harbor Books, the demo shop (`npm run demo`). Every title,
 * author and blurb here is invented for the demo.
 */

/** One book on the shop's shelves. */
export interface Book {
  /** Shop stock code, e.g. `HB-0104`; also the book page's path segment. */
  code: string;
  title: string;
  author: string;
  year: number;
  subject: string;
  /** Price in pounds. */
  price: number;
  /** Copies on the shelf now (0 = on order). */
  stock: number;
  blurb: string;
}

export const BOOKS: readonly Book[] = [
  { code: 'HB-0101', title: "The Lighthouse Keeper's Ledger", author: 'Maren Holt', year: 2019, subject: 'Maritime history', price: 14, stock: 3, blurb: 'Forty years of weather, visitors and lamp oil, reconstructed from the daily ledger of a keeper on a rock off the north coast.' },
  { code: 'HB-0102', title: 'Salt Roads: Trade Routes of the North Sea', author: 'Idris Penhallow', year: 2016, subject: 'History', price: 22.5, stock: 1, blurb: 'How herring, wool and salt tied a dozen small ports into one economy long before the railways came.' },
  { code: 'HB-0103', title: 'Knots for Small Boats', author: 'Tove Lindqvist', year: 2021, subject: 'Sailing', price: 9.99, stock: 7, blurb: 'Thirty knots a dinghy sailor actually uses, each drawn step by step and tied against the clock.' },
  { code: 'HB-0104', title: 'A Year of Tides', author: 'Ellen Marsh', year: 2018, subject: 'Nature', price: 12, stock: 0, blurb: 'A naturalist walks the same mile of shore at every low tide for a year and writes down what the sea leaves behind.' },
  { code: 'HB-0105', title: "The Cartographer's Daughter", author: 'Nadia Okafor', year: 2020, subject: 'Fiction', price: 8.99, stock: 5, blurb: 'A map with one island too many sends a young surveyor back to the town her father spent his life charting.' },
  { code: 'HB-0106', title: 'Fog Signals', author: 'Rowan Achterberg', year: 2015, subject: 'Poetry', price: 7.5, stock: 2, blurb: 'Short poems written on the night ferry, one for every crossing of a long winter.' },
  { code: 'HB-0107', title: 'Bread and Brine: Recipes from the Quay', author: 'Sunniva Rask', year: 2022, subject: 'Cooking', price: 18, stock: 4, blurb: 'Rye loaves, cured fish and the soups fishing families cooked when the boats stayed in.' },
  { code: 'HB-0108', title: 'Lights Along the Coast: A Field Guide to Lighthouses', author: 'Conrad Feld', year: 2017, subject: 'Travel', price: 16, stock: 2, blurb: 'Sixty lighthouses you can walk to, with their light patterns, opening days and the best path out at low water.' },
  { code: 'HB-0109', title: 'The Quiet Engine', author: 'Priya Ramaswamy', year: 2023, subject: 'Science fiction', price: 10.99, stock: 6, blurb: 'A tidal power station that starts answering its engineers, and the harbour town that has to decide what it owes it.' },
  { code: 'HB-0110', title: 'Small Harbours', author: 'Jonah Pellow', year: 2014, subject: 'Essays', price: 11, stock: 0, blurb: 'Essays on places too small for the ferry timetable, and the people who stayed in them.' },
];

/** Books whose title, author or subject contains every word of `query` (case-insensitive). */
export function searchBooks(query: string): Book[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [];
  return BOOKS.filter(book => {
    const haystack = `${book.title} ${book.author} ${book.subject}`.toLowerCase();
    return words.every(word => haystack.includes(word));
  });
}

/** A price in pounds as the shop shows it: `£14.00`. */
export function formatPrice(price: number): string {
  return `£${price.toFixed(2)}`;
}
