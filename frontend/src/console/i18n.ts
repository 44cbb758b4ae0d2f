// The console's words in Spanish and English; the operator chooses, and the
// choice is kept in this browser.

const es = {
  title: 'Consola',
  signInTitle: 'Entrar a la consola',
  email: 'Correo',
  password: 'Contraseña',
  signIn: 'Entrar',
  signOut: 'Salir',
  signingIn: 'Entrando…',
  wrongCredentials: 'Correo o contraseña incorrectos',
  tooMany: 'Demasiados intentos; espera unos minutos',
  tables: 'Tablas',
  sql: 'SQL',
  language: 'Idioma',
  noTables: 'No hay tablas en los esquemas expuestos',
  chooseTable: 'Elige una tabla',
  columns: 'Columnas',
  name: 'Nombre',
  type: 'Tipo',
  nullable: 'Admite nulo',
  default: 'Valor por defecto',
  yes: 'sí',
  no: 'no',
  constraints: 'Restricciones',
  foreignKeys: 'Claves foráneas',
  indexes: 'Índices',
  policies: 'Políticas',
  rlsOn: 'RLS activada',
  rlsOff: 'RLS desactivada',
  noPolicies: 'Sin políticas',
  none: 'Ninguna',
  command: 'Orden',
  roles: 'Roles',
  using: 'USING',
  check: 'WITH CHECK',
  view: 'vista',
  table: 'tabla',
  query: 'Consulta',
  run: 'Ejecutar',
  running: 'Ejecutando…',
  runHint: 'Ctrl+Enter ejecuta',
  downloadCsv: 'Descargar CSV',
  rows: (n: number) => `${n} ${n === 1 ? 'fila' : 'filas'}`,
  truncated: (n: number) => `se muestran las primeras ${n}`,
  noRows: 'La sentencia no devolvió filas',
  error: 'Error',
  loading: 'Cargando…',
};

const en: typeof es = {
  title: 'Console',
  signInTitle: 'Sign in to the console',
  email: 'E-mail',
  password: 'Password',
  signIn: 'Sign in',
  signOut: 'Sign out',
  signingIn: 'Signing in…',
  wrongCredentials: 'Wrong e-mail or password',
  tooMany: 'Too many attempts; wait a few minutes',
  tables: 'Tables',
  sql: 'SQL',
  language: 'Language',
  noTables: 'The exposed schemas have no tables',
  chooseTable: 'Choose a table',
  columns: 'Columns',
  name: 'Name',
  type: 'Type',
  nullable: 'Nullable',
  default: 'Default',
  yes: 'yes',
  no: 'no',
  constraints: 'Constraints',
  foreignKeys: 'Foreign keys',
  indexes: 'Indexes',
  policies: 'Policies',
  rlsOn: 'RLS enabled',
  rlsOff: 'RLS disabled',
  noPolicies: 'No policies',
  none: 'None',
  command: 'Command',
  roles: 'Roles',
  using: 'USING',
  check: 'WITH CHECK',
  view: 'view',
  table: 'table',
  query: 'Query',
  run: 'Run',
  running: 'Running…',
  runHint: 'Ctrl+Enter runs',
  downloadCsv: 'Download CSV',
  rows: (n: number) => `${n} ${n === 1 ? 'row' : 'rows'}`,
  truncated: (n: number) => `showing the first ${n}`,
  noRows: 'The statement returned no rows',
  error: 'Error',
  loading: 'Loading…',
};

export type Words = typeof es;
export type Language = 'es' | 'en';
export const words: Record<Language, Words> = { es, en };

const KEY = 'console.language';

export function savedLanguage(): Language {
  const saved = typeof localStorage === 'undefined' ? null : localStorage.getItem(KEY);
  return saved === 'en' || saved === 'es' ? saved : 'es';
}

export function saveLanguage(language: Language) {
  localStorage.setItem(KEY, language);
  document.documentElement.lang = language;
}
