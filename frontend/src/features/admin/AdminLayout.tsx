import { Outlet } from 'react-router';
// Placeholder until the feature lands.
export default function AdminLayout() {
  return <Outlet />;
}
