-- Demo data for the embedded default (`gateway serve --seed`), never applied to
-- a production database unless asked. Idempotent: it fills an empty shop only.
-- Prices in COP. Every product has a picture under /assets/: one of the
-- predefined list, or a photo of the catalogue; frontend/scripts/draw-devices.mjs
-- draws both (a test of src/lib/productImages.test.ts checks each is there).

insert into public.companies (name, email, phone)
select 'Tienda Celulares Meta', 'ventas@tienda.example', '+57 300 000 0000'
where not exists (select from public.companies);

insert into public.brands (name, description, status)
select b.name, b.description, b.status
from (values
  ('Apple', 'iPhone, iPad y Apple Watch', true),
  ('Samsung', 'Galaxy de gama alta y de entrada', true),
  ('Xiaomi', 'Redmi y Poco', true),
  ('Motorola', 'Moto G y Edge', true),
  ('JBL', 'Parlantes y audífonos', true),
  ('Genérica', 'Accesorios sin marca', true),
  ('Huawei', 'Ya no se distribuye', false)
) as b(name, description, status)
where not exists (select from public.brands);

insert into public.products
  (name, description, price, quantity, category, condition, color, link_image, featured, status, brand_id)
select p.name, p.description, p.price, p.quantity, p.category, p.condition, p.color, p.link_image,
       p.featured, p.status, (select id from public.brands where brands.name = p.brand)
from (values
  ('iPhone 15 Pro 256 GB', 'Titanio, chip A17 Pro, cámara de 48 MP.', 5199000, 4, 'celulares', 'nuevo', 'Titanio natural', '/assets/apple/iphone-15-pro/titanio-natural.svg', true, true, 'Apple'),
  ('iPhone 15 128 GB', 'Dynamic Island y USB-C.', 3999000, 6, 'celulares', 'nuevo', 'Rosa', '/assets/apple/iphone-15/rosa.svg', true, true, 'Apple'),
  ('iPhone 14 128 GB', 'Pantalla de 6,1 pulgadas, detección de choques.', 3299000, 3, 'celulares', 'nuevo', 'Azul', '/assets/apple/iphone-14/azul.svg', false, true, 'Apple'),
  ('iPhone 13 128 GB', 'Reacondicionado con garantía de 6 meses.', 2299000, 2, 'celulares', 'reacondicionado', 'Medianoche', '/assets/apple/iphone-13/medianoche.svg', false, true, 'Apple'),
  ('iPhone 12 64 GB', 'Usado en buen estado, batería al 85 %.', 1499000, 1, 'celulares', 'usado', 'Blanco', '/assets/apple/iphone-12/blanco.svg', false, true, 'Apple'),
  ('iPhone 11 64 GB', 'Reacondicionado, incluye cargador.', 1299000, 0, 'celulares', 'reacondicionado', 'Negro', '/assets/apple/iphone-11/negro.svg', false, true, 'Apple'),
  ('Apple Watch Ultra 2', 'Caja de titanio de 49 mm.', 3899000, 2, 'smartwatch', 'nuevo', 'Titanio', '/assets/apple/apple-watch-ultra-2/titanio.svg', true, true, 'Apple'),
  ('Galaxy A05 64 GB', 'Batería de 5000 mAh.', 459000, 10, 'celulares', 'nuevo', 'Negro', '/assets/samsung/galaxy-a05/negro.svg', false, true, 'Samsung'),
  ('Galaxy A05s 128 GB', 'Pantalla FHD+ de 6,7 pulgadas.', 599000, 8, 'celulares', 'nuevo', 'Verde claro', '/assets/samsung/galaxy-a05s/verde-claro.svg', false, true, 'Samsung'),
  ('Galaxy A06 128 GB', 'Diseño delgado, carga rápida de 25 W.', 649000, 7, 'celulares', 'nuevo', 'Azul claro', '/assets/samsung/galaxy-a06/azul-claro.svg', false, true, 'Samsung'),
  ('Galaxy A16 128 GB', 'Seis años de actualizaciones.', 899000, 5, 'celulares', 'nuevo', 'Negro', '/assets/samsung/galaxy-a16/negro.svg', true, true, 'Samsung'),
  ('Galaxy A26 256 GB', 'Resistente al agua IP67.', 1199000, 4, 'celulares', 'nuevo', 'Menta', '/assets/samsung/galaxy-a26/menta.svg', false, true, 'Samsung'),
  ('Galaxy A35 256 GB', 'Pantalla Super AMOLED de 120 Hz.', 1499000, 3, 'celulares', 'nuevo', 'Lila', '/assets/samsung/galaxy-a35/lila.svg', false, true, 'Samsung'),
  ('Galaxy S23 FE', 'Exhibición, como nuevo.', 1899000, 0, 'celulares', 'usado', 'Crema', '/assets/samsung/galaxy-s23-fe/crema.svg', false, false, 'Samsung'),
  ('Redmi Note 13 256 GB', 'Cámara de 108 MP.', 899000, 9, 'celulares', 'nuevo', 'Verde', '/assets/xiaomi/redmi-note-13/verde.svg', false, true, 'Xiaomi'),
  ('Redmi 13C 128 GB', 'Pantalla de 6,74 pulgadas a 90 Hz.', 499000, 12, 'celulares', 'nuevo', 'Azul', '/assets/xiaomi/redmi-13c/azul.svg', false, true, 'Xiaomi'),
  ('Poco X6 Pro 512 GB', 'Dimensity 8300 Ultra.', 1599000, 2, 'celulares', 'nuevo', 'Amarillo', '/assets/xiaomi/poco-x6-pro/amarillo.svg', false, true, 'Xiaomi'),
  ('Moto G24 128 GB', 'Sonido estéreo Dolby Atmos.', 549000, 6, 'celulares', 'nuevo', 'Grafito', '/assets/motorola/moto-g24/grafito.svg', false, true, 'Motorola'),
  ('Moto Edge 50 Fusion', 'Pantalla curva pOLED.', 1699000, 1, 'celulares', 'nuevo', 'Azul marino', '/assets/motorola/moto-edge-50-fusion/azul-marino.svg', false, true, 'Motorola'),
  ('iPad 10.ª generación 64 GB', 'Pantalla Liquid Retina de 10,9 pulgadas.', 2199000, 3, 'tablet', 'nuevo', 'Azul', '/assets/apple/ipad-10/azul.svg', false, true, 'Apple'),
  ('Galaxy Tab A9 64 GB', 'Tablet de 8,7 pulgadas.', 699000, 4, 'tablet', 'nuevo', 'Gris', '/assets/samsung/galaxy-tab-a9/gris.svg', false, true, 'Samsung'),
  ('Redmi Pad SE', 'Pantalla de 11 pulgadas a 90 Hz.', 899000, 0, 'tablet', 'nuevo', 'Gris', '/assets/xiaomi/redmi-pad-se/gris.svg', false, true, 'Xiaomi'),
  ('JBL Flip 6', 'Parlante portátil resistente al agua.', 549000, 5, 'parlantes', 'nuevo', 'Negro', '/assets/jbl/flip-6/negro.svg', true, true, 'JBL'),
  ('JBL Go 3', 'Parlante compacto con correa.', 189000, 14, 'parlantes', 'nuevo', 'Rojo', '/assets/jbl/go-3/rojo.svg', false, true, 'JBL'),
  ('JBL Charge 5', 'Batería de 20 horas y powerbank.', 799000, 2, 'parlantes', 'nuevo', 'Azul', '/assets/jbl/charge-5/azul.svg', false, true, 'JBL'),
  ('JBL Tune 520BT', 'Audífonos inalámbricos de diadema.', 229000, 8, 'audifonos', 'nuevo', 'Blanco', '/assets/jbl/tune-520bt/blanco.svg', false, true, 'JBL'),
  ('AirPods Pro 2', 'Cancelación activa de ruido, USB-C.', 1199000, 3, 'audifonos', 'nuevo', 'Blanco', '/assets/apple/airpods-pro-2/blanco.svg', true, true, 'Apple'),
  ('Galaxy Buds FE', 'Audífonos con ANC.', 399000, 0, 'audifonos', 'nuevo', 'Grafito', '/assets/samsung/galaxy-buds-fe/grafito.svg', false, true, 'Samsung'),
  ('Redmi Buds 4 Active', 'Audífonos TWS ligeros.', 99000, 20, 'audifonos', 'nuevo', 'Negro', '/assets/xiaomi/redmi-buds-4-active/negro.svg', false, true, 'Xiaomi'),
  ('Vidrio templado iPhone 15', 'Cobertura completa 9H.', 25000, 40, 'vidrios', 'nuevo', null, '/assets/generica/vidrio-templado/iphone-15.svg', false, true, 'Genérica'),
  ('Vidrio templado Galaxy A16', 'Cobertura completa 9H.', 20000, 35, 'vidrios', 'nuevo', null, '/assets/generica/vidrio-templado/galaxy-a16.svg', false, true, 'Genérica'),
  ('Vidrio de privacidad iPhone 14', 'Evita miradas laterales.', 35000, 0, 'vidrios', 'nuevo', null, '/assets/generica/vidrio-privacidad/iphone-14.svg', false, true, 'Genérica'),
  ('Case MagSafe iPhone 15', 'Silicona con imanes.', 89000, 12, 'cases', 'nuevo', 'Azul', '/assets/generica/case-magsafe/azul.svg', false, true, 'Genérica'),
  ('Case antigolpes Galaxy A35', 'Esquinas reforzadas.', 45000, 9, 'cases', 'nuevo', 'Transparente', '/assets/generica/case-antigolpes/transparente.svg', false, true, 'Genérica'),
  ('Case billetera Redmi Note 13', 'Cuero sintético con tarjetero.', 39000, 4, 'cases', 'nuevo', 'Café', '/assets/generica/case-billetera/cafe.svg', false, false, 'Genérica'),
  ('Cable USB-C a USB-C 1 m', 'Carga rápida de 60 W.', 29000, 30, 'cables', 'nuevo', 'Blanco', '/assets/generica/cable-usb-c/blanco.svg', false, true, 'Genérica'),
  ('Cable USB-C a Lightning 1 m', 'Certificado MFi.', 49000, 18, 'cables', 'nuevo', 'Blanco', '/assets/apple/cable-usb-c-lightning/blanco.svg', false, true, 'Apple'),
  ('Cable micro USB 2 m', 'Trenzado.', 15000, 3, 'cables', 'nuevo', 'Negro', '/assets/generica/cable-micro-usb/negro.svg', false, true, 'Genérica'),
  ('Cargador 20 W USB-C', 'Carga rápida para iPhone.', 99000, 15, 'cargadores', 'nuevo', 'Blanco', '/assets/apple/cargador-20w/blanco.svg', false, true, 'Apple'),
  ('Cargador Samsung 25 W', 'Super Fast Charging.', 89000, 10, 'cargadores', 'nuevo', 'Negro', '/assets/samsung/cargador-25w/negro.svg', false, true, 'Samsung'),
  ('Cargador de carro doble', 'Dos puertos USB-A y USB-C.', 39000, 0, 'cargadores', 'nuevo', 'Negro', '/assets/generica/cargador-carro/negro.svg', false, true, 'Genérica'),
  ('Galaxy Watch6 40 mm', 'Monitor de sueño y ECG.', 999000, 2, 'smartwatch', 'nuevo', 'Dorado', '/assets/samsung/galaxy-watch6/dorado.svg', false, true, 'Samsung'),
  ('Redmi Watch 4', 'Pantalla AMOLED de 1,97 pulgadas.', 399000, 6, 'smartwatch', 'nuevo', 'Negro', '/assets/xiaomi/redmi-watch-4/negro.svg', false, true, 'Xiaomi'),
  ('Teclado y mouse inalámbricos', 'Combo silencioso 2,4 GHz.', 119000, 5, 'teclado-mouse', 'nuevo', 'Negro', '/assets/generica/teclado-mouse/negro.svg', false, true, 'Genérica'),
  ('Mouse Bluetooth recargable', 'Tres dispositivos a la vez.', 69000, 0, 'teclado-mouse', 'nuevo', 'Gris', '/assets/generica/mouse-bluetooth/gris.svg', false, true, 'Genérica'),
  ('Holder magnético para carro', 'Compatible con MagSafe.', 59000, 11, 'holder', 'nuevo', 'Negro', '/assets/generica/holder-carro/negro.svg', false, true, 'Genérica'),
  ('Holder de escritorio', 'Aluminio, ángulo ajustable.', 45000, 7, 'holder', 'nuevo', 'Plateado', '/assets/generica/holder-escritorio/plateado.svg', false, true, 'Genérica'),
  ('Kit de limpieza para pantallas', 'Spray y paño de microfibra.', 19000, 25, 'accesorios-varios', 'nuevo', null, '/assets/generica/kit-limpieza/azul.svg', false, true, 'Genérica'),
  ('Anillo de soporte', 'Adhesivo reutilizable.', 12000, 0, 'accesorios-varios', 'nuevo', 'Dorado', '/assets/generica/anillo-soporte/dorado.svg', false, true, 'Genérica'),
  ('Power bank 10000 mAh', 'Carga dos equipos a la vez.', 129000, 9, 'accesorios-varios', 'nuevo', 'Negro', '/assets/xiaomi/power-bank-10000/negro.svg', true, true, 'Xiaomi')
) as p(name, description, price, quantity, category, condition, color, link_image, featured, status, brand)
where not exists (select from public.products);
