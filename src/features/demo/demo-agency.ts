/**
 * The demo agency itself: a Spanish agency ("Demo Realty"), its branded portal settings and its
 * 4 agents. Its 150 listings are generated in demo-data.ts.
 */
import type { CreateAgentBody } from '../agents/index.ts';
import type { UpdatePortalSettingsBody } from '../portal/index.ts';
import type { AgentKey } from './demo-cities.ts';

export const DEMO_COUNTRY = 'ES';
export const DEMO_CURRENCY = 'EUR';

export const DEMO_PORTAL: UpdatePortalSettingsBody = {
  agencyName: 'Demo Realty',
  colors: {
    primary: '#0F4C5C',
    secondary: '#E36414',
    accent: '#FB8B24',
    background: '#FFFFFF',
    text: '#1F2933',
  },
  contact: {
    email: 'hola@demo-realty.example',
    phone: '+34 952 123 456',
    messagingPhone: '+34 612 345 678',
    address: 'Calle Marqués de Larios 4, 29005 Málaga',
    openingHours: 'Mon–Thu 9:30–14:00 and 16:30–19:30, Fri 9:00–15:00',
  },
  socialLinks: {
    instagram: 'https://www.instagram.com/demorealty',
    facebook: 'https://www.facebook.com/demorealty',
    linkedin: 'https://www.linkedin.com/company/demo-realty',
    website: 'https://demo-realty.example',
  },
};

/** Two bookable agents (Lucía confirms at once, Javier confirms by hand) and two who are not. */
export const DEMO_AGENTS: Record<AgentKey, CreateAgentBody> = {
  lucia: {
    firstName: 'Lucía',
    lastName: 'Navarro',
    email: 'lucia.navarro@demo-realty.example',
    phone: '+34 611 204 318',
    photoUrl: 'https://picsum.photos/seed/agent-lucia-navarro/400/400',
    bio: 'Costa del Sol and Sevilla specialist; speaks Spanish, English and German.',
    bookingSlug: 'lucia-navarro',
    booking: {
      autoConfirm: true,
      timezone: 'Europe/Madrid',
      weekdays: [1, 2, 3, 4, 5],
      startTime: '09:30',
      endTime: '19:30',
      // The Spanish split day: a long lunch break Monday to Thursday, a short Friday.
      weeklyHours: [1, 2, 3, 4]
        .flatMap((weekday) => [
          { weekday, startTime: '09:30', endTime: '14:00' },
          { weekday, startTime: '16:30', endTime: '19:30' },
        ])
        .concat([{ weekday: 5, startTime: '09:00', endTime: '15:00' }]),
      slotMinutes: 30,
      bufferMinutes: 15,
    },
  },
  javier: {
    firstName: 'Javier',
    lastName: 'Morales',
    email: 'javier.morales@demo-realty.example',
    phone: '+34 622 517 940',
    photoUrl: 'https://picsum.photos/seed/agent-javier-morales/400/400',
    bio: 'Madrid city centre and Salamanca; rentals and first homes.',
    bookingSlug: 'javier-morales',
    booking: {
      autoConfirm: false,
      timezone: 'Europe/Madrid',
      weekdays: [1, 2, 3, 4, 5],
      startTime: '10:00',
      endTime: '19:00',
      weeklyHours: [{ weekday: 6, startTime: '10:00', endTime: '14:00' }],
      slotMinutes: 45,
    },
  },
  marta: {
    firstName: 'Marta',
    lastName: 'Puig',
    email: 'marta.puig@demo-realty.example',
    phone: '+34 633 802 175',
    photoUrl: 'https://picsum.photos/seed/agent-marta-puig/400/400',
    bio: 'Barcelona: Gràcia, Eixample and the seafront.',
  },
  pablo: {
    firstName: 'Pablo',
    lastName: 'Ferrer',
    email: 'pablo.ferrer@demo-realty.example',
    phone: '+34 644 093 628',
    photoUrl: 'https://picsum.photos/seed/agent-pablo-ferrer/400/400',
    bio: 'Valencia: Ruzafa, El Carmen and the beaches of El Cabanyal.',
  },
};
