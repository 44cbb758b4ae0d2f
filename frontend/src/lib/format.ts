const formatters = new Map<number, Intl.NumberFormat>();

/**
 * Colombian pesos in the es-CO locale: 0 decimals on the public screens, the
 * table and the dashboard; 2 in the product form (spec section 9).
 */
export function formatCOP(value: number, decimals: 0 | 2 = 0): string {
  let formatter = formatters.get(decimals);
  if (!formatter) {
    formatter = new Intl.NumberFormat('es-CO', {
      style: 'currency',
      currency: 'COP',
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    });
    formatters.set(decimals, formatter);
  }
  return formatter.format(value);
}

/** A timestamp's date as YYYY-MM-DD in local time (brand cards). */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
