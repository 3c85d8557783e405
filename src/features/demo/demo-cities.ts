// The demo agency's cities and neighbourhoods: where its 150 properties are (demo-data.ts lays them out).
/** Who handles which city: the key of each agent in DEMO_AGENTS. */
export type AgentKey = 'lucia' | 'javier' | 'marta' | 'pablo';

export interface Neighborhood {
  name: string;
  latitude: number;
  longitude: number;
  zipCode: string;
  streets: string[];
  /** Price level against the city's average. */
  factor: number;
  seaside?: boolean;
  /** Has detached and terraced houses (city-centre neighborhoods have flats only). */
  houses?: boolean;
}

export interface CityTemplate {
  city: string;
  prefix: string;
  agent: AgentKey;
  /** Average asking prices in EUR: per m² for sale, per m² and month for rent. */
  salePerM2: number;
  rentPerM2: number;
  neighborhoods: Neighborhood[];
}

export const CITIES: CityTemplate[] = [
  {
    city: 'Málaga',
    prefix: 'MAL',
    agent: 'lucia',
    salePerM2: 3600,
    rentPerM2: 15,
    neighborhoods: [
      {
        name: 'Centro',
        latitude: 36.7213,
        longitude: -4.4214,
        zipCode: '29005',
        streets: ['Calle Granada', 'Calle Méndez Núñez'],
        factor: 1.15,
      },
      {
        name: 'Soho',
        latitude: 36.716,
        longitude: -4.425,
        zipCode: '29001',
        streets: ['Calle Tomás Heredia', 'Calle Vendeja'],
        factor: 1.05,
      },
      {
        name: 'La Malagueta',
        latitude: 36.7205,
        longitude: -4.409,
        zipCode: '29016',
        streets: ['Paseo de Reding', 'Calle Vélez-Málaga'],
        factor: 1.4,
        seaside: true,
      },
      {
        name: 'El Limonar',
        latitude: 36.7235,
        longitude: -4.395,
        zipCode: '29016',
        streets: ['Paseo del Limonar', 'Calle Ramos Carrión'],
        factor: 1.5,
        seaside: true,
        houses: true,
      },
      {
        name: 'Pedregalejo',
        latitude: 36.7215,
        longitude: -4.385,
        zipCode: '29017',
        streets: ['Paseo Marítimo El Pedregal', 'Calle Bolivia'],
        factor: 1.25,
        seaside: true,
        houses: true,
      },
      {
        name: 'Teatinos',
        latitude: 36.7185,
        longitude: -4.479,
        zipCode: '29010',
        streets: ['Calle Navarro Ledesma', 'Avenida Plutarco'],
        factor: 0.8,
        houses: true,
      },
    ],
  },
  {
    city: 'Madrid',
    prefix: 'MAD',
    agent: 'javier',
    salePerM2: 5200,
    rentPerM2: 20,
    neighborhoods: [
      {
        name: 'Malasaña',
        latitude: 40.426,
        longitude: -3.704,
        zipCode: '28004',
        streets: ['Calle del Pez', 'Calle de San Vicente Ferrer'],
        factor: 1.1,
      },
      {
        name: 'Chamberí',
        latitude: 40.434,
        longitude: -3.703,
        zipCode: '28010',
        streets: ['Calle de Eloy Gonzalo', 'Calle de Fuencarral'],
        factor: 1.2,
      },
      {
        name: 'Salamanca',
        latitude: 40.43,
        longitude: -3.68,
        zipCode: '28001',
        streets: ['Calle de Velázquez', 'Calle de Serrano'],
        factor: 1.55,
      },
      {
        name: 'Lavapiés',
        latitude: 40.4085,
        longitude: -3.701,
        zipCode: '28012',
        streets: ['Calle del Argumosa', 'Calle de la Fe'],
        factor: 0.85,
      },
      {
        name: 'Retiro',
        latitude: 40.411,
        longitude: -3.677,
        zipCode: '28009',
        streets: ['Calle de Ibiza', 'Calle del Doctor Castelo'],
        factor: 1.15,
      },
      {
        name: 'Aravaca',
        latitude: 40.456,
        longitude: -3.785,
        zipCode: '28023',
        streets: ['Calle de la Golondrina', 'Avenida de la Osa Mayor'],
        factor: 1.3,
        houses: true,
      },
      {
        name: 'Chamartín',
        latitude: 40.459,
        longitude: -3.677,
        zipCode: '28036',
        streets: ['Calle del Príncipe de Vergara', 'Calle de Víctor Andrés Belaúnde'],
        factor: 1.2,
        houses: true,
      },
    ],
  },
  {
    city: 'Barcelona',
    prefix: 'BCN',
    agent: 'marta',
    salePerM2: 4800,
    rentPerM2: 21,
    neighborhoods: [
      {
        name: 'Gràcia',
        latitude: 41.403,
        longitude: 2.157,
        zipCode: '08012',
        streets: ['Carrer de Verdi', 'Carrer de Torrijos'],
        factor: 1.05,
      },
      {
        name: 'Eixample',
        latitude: 41.389,
        longitude: 2.162,
        zipCode: '08009',
        streets: ['Carrer del Consell de Cent', 'Carrer de València'],
        factor: 1.2,
      },
      {
        name: 'El Born',
        latitude: 41.385,
        longitude: 2.182,
        zipCode: '08003',
        streets: ['Carrer de la Princesa', 'Carrer del Rec'],
        factor: 1.15,
      },
      {
        name: 'Poblenou',
        latitude: 41.4,
        longitude: 2.2,
        zipCode: '08005',
        streets: ['Rambla del Poblenou', 'Carrer de Pujades'],
        factor: 1.0,
        seaside: true,
      },
      {
        name: 'Pedralbes',
        latitude: 41.388,
        longitude: 2.115,
        zipCode: '08034',
        streets: ['Avinguda de Pearson', 'Carrer de Panamà'],
        factor: 1.6,
        houses: true,
      },
      {
        name: 'Sant Gervasi',
        latitude: 41.404,
        longitude: 2.136,
        zipCode: '08021',
        streets: ['Carrer de Muntaner', 'Carrer de Santaló'],
        factor: 1.35,
        houses: true,
      },
      {
        name: 'La Barceloneta',
        latitude: 41.38,
        longitude: 2.189,
        zipCode: '08003',
        streets: ['Carrer de la Maquinista', 'Passeig de Joan de Borbó'],
        factor: 1.1,
        seaside: true,
      },
    ],
  },
  {
    city: 'Valencia',
    prefix: 'VLC',
    agent: 'pablo',
    salePerM2: 2600,
    rentPerM2: 13,
    neighborhoods: [
      {
        name: 'Ruzafa',
        latitude: 39.462,
        longitude: -0.374,
        zipCode: '46004',
        streets: ['Carrer de Sueca', 'Carrer de Cadis'],
        factor: 1.15,
      },
      {
        name: 'El Carmen',
        latitude: 39.478,
        longitude: -0.38,
        zipCode: '46003',
        streets: ['Carrer de Quart', 'Carrer de Dalt'],
        factor: 1.1,
      },
      {
        name: 'Benimaclet',
        latitude: 39.486,
        longitude: -0.36,
        zipCode: '46020',
        streets: ['Carrer de Murta', 'Carrer del Poeta Artola'],
        factor: 0.85,
        houses: true,
      },
      {
        name: 'El Cabanyal',
        latitude: 39.47,
        longitude: -0.33,
        zipCode: '46011',
        streets: ['Carrer de la Reina', 'Carrer de Josep Benlliure'],
        factor: 0.95,
        seaside: true,
      },
      {
        name: 'Campanar',
        latitude: 39.482,
        longitude: -0.4,
        zipCode: '46015',
        streets: ['Avinguda de Pius XII', 'Carrer del Mestre Rodrigo'],
        factor: 1.0,
        houses: true,
      },
    ],
  },
  {
    city: 'Sevilla',
    prefix: 'SVQ',
    agent: 'lucia',
    salePerM2: 2500,
    rentPerM2: 12,
    neighborhoods: [
      {
        name: 'Triana',
        latitude: 37.384,
        longitude: -6.004,
        zipCode: '41010',
        streets: ['Calle Betis', 'Calle Pureza'],
        factor: 1.2,
      },
      {
        name: 'Santa Cruz',
        latitude: 37.385,
        longitude: -5.989,
        zipCode: '41004',
        streets: ['Calle Mateos Gago', 'Calle Santa Teresa'],
        factor: 1.35,
      },
      {
        name: 'Nervión',
        latitude: 37.383,
        longitude: -5.97,
        zipCode: '41005',
        streets: ['Avenida Eduardo Dato', 'Calle Luis de Morales'],
        factor: 1.0,
        houses: true,
      },
      {
        name: 'Los Remedios',
        latitude: 37.374,
        longitude: -5.999,
        zipCode: '41011',
        streets: ['Calle Asunción', 'Avenida República Argentina'],
        factor: 1.15,
        houses: true,
      },
      {
        name: 'Alameda',
        latitude: 37.4,
        longitude: -5.994,
        zipCode: '41002',
        streets: ['Alameda de Hércules', 'Calle Feria'],
        factor: 0.95,
      },
    ],
  },
];
