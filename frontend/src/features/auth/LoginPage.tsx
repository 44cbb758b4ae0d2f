// Placeholder until the feature lands.
export default function LoginPage() {
  return <main><h1>LoginPage</h1></main>;
}
