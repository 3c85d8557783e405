// Appointments: the back office, v1 reads, and the booking's appointment.created.
import { appointmentsPersonalData } from './appointments.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { AppointmentCreated, AppointmentDeleted, AppointmentUpdated } from './appointments.events.ts';
import { appointmentsMcpTools, appointmentsMcpCounts } from './appointments.mcp.ts';
import { appointmentsRoutes } from './appointments.routes.ts';
import { appointmentsSchemas } from './appointments.schema.ts';

export { AppointmentCreated } from './appointments.events.ts';
export {
  APPOINTMENT_TYPES,
  AppointmentResponseSchema,
  type Appointment,
  type AppointmentType,
} from './appointments.schema.ts';
export { listAppointments } from './appointments.read.ts';
export {
  createAppointment,
  insertAppointmentInTx,
  listBusyIntervals,
  loadAppointment,
  lockAgentBookings,
  requireAppointmentRef,
  toAppointment,
} from './appointments.service.ts';
export {
  cancelAppointment,
  cancelAppointmentInTx,
  moveAppointmentInTx,
  recordAppointmentCreated,
  requireActive,
} from './appointments.lifecycle.ts';
export { handOverAppointments } from './appointments.handover.ts';
export { manageToken, manageUrl, openManageToken } from './appointments.links.ts';

/** The appointments feature's manifest (src/features.ts lists it). */
export const appointmentsFeature = defineFeature({
  name: 'appointments',
  personalData: appointmentsPersonalData,
  scopes: [
    { name: 'appointments:read', description: 'reads appointments and the calendar' },
    {
      name: 'appointments:write',
      description: 'creates, moves and cancels appointments, time off and closures (support approval)',
      approval: true,
    },
  ],
  tags: [
    { name: 'Appointments', description: 'Visits, calls and meetings of the agents' },
    {
      name: 'Admin: appointments',
      description: 'Appointments of any agent, created and moved by the back office (admin)',
    },
  ],
  schemas: appointmentsSchemas,
  routes: [appointmentsRoutes],
  mcpTools: appointmentsMcpTools,
  mcpCounts: appointmentsMcpCounts,
  events: [AppointmentCreated, AppointmentUpdated, AppointmentDeleted],
});
