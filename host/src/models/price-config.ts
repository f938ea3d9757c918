/**
 * The price config, `<data-dir>/prices.json`: what models cost, for a model Tether's own dated
 * table does not name or prices differently (a negotiated rate, a model served at no charge):
 *
 *   { "asOf": "2026-12-01", "models": { "claude-sonnet-5-5": { "inputPerMTok": 3, "outputPerMTok": 15 },
 *                                        "gpt-5.4": null } }
 *
 * Keys are a provider's own model names (as the own loop sends them, or as an ACP agent names
 * its models); `null` says the price is not known (the table's is then not used). `asOf` is the
 * date the prices were read, shown with every cost. Closed schema: an unknown field, a bad date or
 * a negative price stops `tether start` with a message naming it.
 */
import type { Price, Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import * as v from 'valibot';
import { decodeConfig, readConfigFile } from './config-file.js';
import type { PriceBook } from './prices.js';
import { priceBook } from './prices.js';

/** Dollars per million tokens a price may name: far above any model's. */
const MAX_PER_MTOK = 10_000;

const closed = (issue: { input: unknown }) =>
  issue.input === undefined ? 'is required' : 'is a field the price config does not define';

const PerMTok = v.pipe(
  v.number('must be US dollars per million tokens'),
  v.minValue(0, 'must not be negative'),
  v.maxValue(MAX_PER_MTOK, `must be at most ${MAX_PER_MTOK}`),
);

const FileSchema = v.strictObject(
  {
    asOf: v.pipe(v.string('must be a date, YYYY-MM-DD'), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD')),
    models: v.record(
      v.pipe(v.string(), v.minLength(1, 'must name a model'), v.maxLength(200, 'is too long for a model name')),
      v.nullable(v.strictObject({ inputPerMTok: PerMTok, outputPerMTok: PerMTok }, closed)),
      'must be an object',
    ),
  },
  closed,
);

/** The prices in force with the file at `path` over the table; a missing file is the table alone. */
export function loadPriceBook(path: string): Result<PriceBook> {
  const text = readConfigFile(path, 'price config');
  if (!text.ok) return text;
  if (text.value === undefined) return ok(priceBook());
  const decoded = decodePriceConfig(text.value);
  return decoded.ok
    ? ok(priceBook(decoded.value))
    : fail('invalid-params', `price config ${path}: ${decoded.error.message}`);
}

/** The file's prices by model name (null: not known). */
export function decodePriceConfig(text: string): Result<Map<string, Price | null>> {
  const parsed = decodeConfig(text, FileSchema);
  if (!parsed.ok) return parsed;
  const { asOf, models } = parsed.value;
  const out = new Map<string, Price | null>();
  for (const [name, entry] of Object.entries(models)) out.set(name, entry && { ...entry, asOf, source: 'config' });
  return ok(out);
}
