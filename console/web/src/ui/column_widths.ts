// Column widths in pixels, chosen once per table (not per event, so rows arriving never make
// columns jump): the widest of the header and a sample of cells, as measured, within bounds.
// Pure: the caller measures text.

export const MIN_COLUMN_PX = 48;
export const MAX_COLUMN_PX = 420;
// Cell padding either side, and in the header also the sort arrow.
const CELL_EXTRA_PX = 20;
const HEADER_EXTRA_PX = 32;
// An age grows ("59s", then "2m30s"): its column leaves room for a long one.
const LONG_AGE = '99m59s';

export interface ColumnSpec {
  readonly label: string;
  readonly isAge: boolean;
}

export interface Measure {
  cell(text: string): number;
  header(text: string): number;
}

export function columnWidths(columns: readonly ColumnSpec[], sample: readonly (readonly string[])[], measure: Measure): number[] {
  return columns.map((column, i) => {
    let widest = measure.header(column.label) + HEADER_EXTRA_PX;
    const seen = new Set<number>();
    for (const cells of sample) {
      const text = cells[i] ?? '';
      // Texts of one length measure alike often enough; measuring each length once is plenty.
      if (seen.has(text.length) && text.length < 4) {
        continue;
      }
      seen.add(text.length);
      widest = Math.max(widest, measure.cell(text) + CELL_EXTRA_PX);
    }
    if (column.isAge) {
      widest = Math.max(widest, measure.cell(LONG_AGE) + CELL_EXTRA_PX);
    }
    return Math.ceil(Math.min(Math.max(widest, MIN_COLUMN_PX), MAX_COLUMN_PX));
  });
}
