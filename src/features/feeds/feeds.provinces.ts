// Spain's provinces by the first two digits of a postal code (Correos assigns them by INE province
// code, 01-52), for Kyero's required `<province>` (issue 40 item 2, decision 0256).

const SPANISH_PROVINCES: readonly string[] = [
  'Álava',
  'Albacete',
  'Alicante',
  'Almería',
  'Ávila',
  'Badajoz',
  'Illes Balears',
  'Barcelona',
  'Burgos',
  'Cáceres',
  'Cádiz',
  'Castellón',
  'Ciudad Real',
  'Córdoba',
  'A Coruña',
  'Cuenca',
  'Girona',
  'Granada',
  'Guadalajara',
  'Gipuzkoa',
  'Huelva',
  'Huesca',
  'Jaén',
  'León',
  'Lleida',
  'La Rioja',
  'Lugo',
  'Madrid',
  'Málaga',
  'Murcia',
  'Navarra',
  'Ourense',
  'Asturias',
  'Palencia',
  'Las Palmas',
  'Pontevedra',
  'Salamanca',
  'Santa Cruz de Tenerife',
  'Cantabria',
  'Segovia',
  'Sevilla',
  'Soria',
  'Tarragona',
  'Teruel',
  'Toledo',
  'Valencia',
  'Valladolid',
  'Bizkaia',
  'Zamora',
  'Zaragoza',
  'Ceuta',
  'Melilla',
];

/** The province of a Spanish postal code (five digits, 01000-52999), or null for anything else. */
export function spanishProvinceOf(postalCode: string | null): string | null {
  const match = /^\s*(\d{2})\d{3}\s*$/.exec(postalCode ?? '');
  if (!match) return null;
  return SPANISH_PROVINCES[Number(match[1]) - 1] ?? null;
}
