variable "win_count" {
  default = 2
}

resource "azurerm_kubernetes_cluster" "hybrid" {
  name                = "hybrid"
  location            = "westeurope"
  resource_group_name = "rg"
  dns_prefix          = "hybrid"

  default_node_pool {
    name       = "system"
    node_count = 3
    vm_size    = "Standard_D2s_v3"
  }

  network_profile {
    network_plugin = "kubenet"
  }
}

resource "azurerm_kubernetes_cluster_node_pool" "win" {
  name                  = "win19"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.hybrid.id
  vm_size               = "Standard_D4s_v3"
  node_count            = var.win_count
  os_type               = "Windows"
  os_sku                = "Windows2019"
  node_taints           = ["os=windows:NoSchedule"]
  node_labels = {
    "team" = "iis"
  }
}
